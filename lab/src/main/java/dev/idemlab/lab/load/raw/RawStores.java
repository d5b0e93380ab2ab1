package dev.idemlab.lab.load.raw;

import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;

/** Opens the raw baseline client for a store, against the server its lab backend provisioned. */
public final class RawStores {

    private RawStores() { }

    /**
     * A raw client on the same server as {@code backend}'s stores.
     *
     * @throws IllegalArgumentException for a backend without a raw client (a Redis Cluster)
     */
    public static RawStore open(StoreBackend backend) {
        if (backend instanceof MemoryBackend) {
            return new MemoryRawStore();
        }
        if (backend instanceof RedisBackend redis) {
            return new RedisRawStore(redis.uri());
        }
        if (backend instanceof PostgresBackend postgres) {
            return new PostgresRawStore(postgres.jdbcUrl(), postgres.user(), postgres.password());
        }
        throw new IllegalArgumentException("no raw client for " + backend.name() + ": only "
                + String.join(", ", NAMES) + " have one");
    }

    /** What the raw driver's first call writes on {@code store}, for reports. */
    public static String firstCallWrites(String store) {
        return switch (store) {
            case "memory" -> "ConcurrentHashMap.putIfAbsent then replace";
            case "redis" -> "SET NX PX then SET XX PX";
            case "postgres" -> "INSERT ... ON CONFLICT DO NOTHING then UPDATE";
            default -> "no raw driver";
        };
    }

    /** The backends, by name, that have a raw client. */
    public static final java.util.List<String> NAMES = java.util.List.of("memory", "redis", "postgres");
}
