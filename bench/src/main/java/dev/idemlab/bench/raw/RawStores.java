package dev.idemlab.bench.raw;

import dev.idemlab.bench.StoreKind;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;

/** Opens the raw baseline client for a store, against the server its lab backend provisioned. */
public final class RawStores {

    private RawStores() { }

    /**
     * A raw client on the same server as {@code backend}'s stores.
     */
    public static RawStore open(StoreKind kind, StoreBackend backend) {
        return switch (kind) {
            case MEMORY -> new MemoryRawStore();
            case REDIS -> new RedisRawStore(((RedisBackend) backend).uri());
            case POSTGRES -> {
                PostgresBackend postgres = (PostgresBackend) backend;
                yield new PostgresRawStore(postgres.jdbcUrl(), postgres.user(), postgres.password());
            }
        };
    }

    /** Whether this build's lab knows how to provision {@code kind}. */
    public static boolean available(StoreKind kind) {
        return StoreBackends.NAMES.contains(kind.backendName());
    }
}
