package dev.idemlab.lab.infra;

import java.util.List;

/** Opens a {@link StoreBackend} by name, provisioning its server as {@link ProvisioningOptions} say. */
public final class StoreBackends {

    /** Every store the lab knows. */
    public static final List<String> NAMES = List.of("memory", "redis", "postgres", RedisClusterBackend.NAME);

    /**
     * The stores {@code lab check} runs when none is named, in that order: the cluster, six servers
     * of its own, is checked when asked for ({@code --stores redis-cluster}, or {@code --redis-from cluster}).
     */
    public static final List<String> CHECKED_BY_DEFAULT = List.of("memory", "redis", "postgres");

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
