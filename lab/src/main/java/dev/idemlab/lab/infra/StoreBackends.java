package dev.idemlab.lab.infra;

import java.util.List;

/** Opens a {@link StoreBackend} by name, provisioning its server as {@link ProvisioningOptions} say. */
public final class StoreBackends {

    /**
     * The stores {@code lab check} runs when none is named, in that order, as help texts write them: the
     * cluster, six servers of its own, is checked when asked for ({@code --stores redis-cluster}, or
     * {@code --redis-from cluster}). The one place this list is written.
     */
    public static final String CHECKED_BY_DEFAULT_TEXT = "memory, redis, postgres";

    /**
     * Every store the lab knows, as help texts write them; the one place this list is written, so that
     * help, usage errors and the options table of docs/experiments.md (held to it by a test) name the same stores.
     */
    public static final String NAMES_TEXT = CHECKED_BY_DEFAULT_TEXT + ", " + RedisClusterBackend.NAME;

    /** Every store the lab knows. */
    public static final List<String> NAMES = List.of(NAMES_TEXT.split(", "));

    /** The stores {@code lab check} runs when none is named, in that order. */
    public static final List<String> CHECKED_BY_DEFAULT = List.of(CHECKED_BY_DEFAULT_TEXT.split(", "));

    /** The store scenarios use when none is named. */
    public static final String DEFAULT = "redis";

    /** The names, for command-line completion and help. */
    public static final class Names implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return NAMES.iterator();
        }
    }

    private StoreBackends() { }

    /**
     * @throws IllegalArgumentException for an unknown store name
     * @throws ProvisioningException when no server could be had, saying how to get one
     */
    public static StoreBackend open(String name, ProvisioningOptions options) {
        // Before anything starts: servers that a killed lab left running are stopped now.
        ServerRegistry.reapStale();
        return switch (name) {
            case "memory" -> new MemoryBackend();
            case "redis" -> RedisClusterBackend.asked(options) ? RedisClusterBackend.open(options)
                    : RedisBackend.open(options);
            case RedisClusterBackend.NAME -> RedisClusterBackend.open(options);
            case "postgres" -> PostgresBackend.open(options);
            default -> throw new IllegalArgumentException("unknown store '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }
}
