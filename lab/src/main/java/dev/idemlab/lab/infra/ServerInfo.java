package dev.idemlab.lab.infra;

import java.util.Objects;

/**
 * What every lab output says about the store it used.
 *
 * @param store the store's name: memory, redis, postgres
 * @param version the server's version as it reports it
 * @param origin where the server came from
 * @param address where it listens, or {@code in-process}
 * @param durability what the server promises about an acknowledged write, as read back from it
 *     (e.g. {@code fsync=off, synchronous_commit=off}), or {@code null} where that was not read
 */
public record ServerInfo(String store, String version, Origin origin, String address, String durability) {

    /** A server whose durability settings were not read. */
    public ServerInfo(String store, String version, Origin origin, String address) {
        this(store, version, origin, address, null);
    }

    public ServerInfo {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(address, "address");
    }

    /** One line for humans: {@code redis 7.2.4 (bundled binary, private instance) at 127.0.0.1:40123}. */
    public String describe() {
        if (origin == Origin.IN_PROCESS) {
            return store + " (" + origin.description() + ")";
        }
        return store + " " + version + " (" + origin.description() + ") at " + address;
    }

    /**
     * {@link #describe()} and, where they were read, the durability settings:
     * {@code postgres 14.15 (bundled binary, private instance) at 127.0.0.1:5432, fsync=off, synchronous_commit=off}.
     */
    public String describeWithDurability() {
        return durability == null ? describe() : describe() + ", " + durability;
    }
}
