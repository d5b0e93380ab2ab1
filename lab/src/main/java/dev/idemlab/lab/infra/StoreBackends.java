package dev.idemlab.lab.infra;

import java.util.List;

/** Opens a {@link StoreBackend} by name, provisioning its server as {@link ProvisioningOptions} say. */
public final class StoreBackends {

    /** Every store the lab knows, in the order {@code lab check} runs them. */
    public static final List<String> NAMES = List.of("memory", "redis", "postgres");

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
            case "redis" -> RedisBackend.open(options);
            case "postgres" -> PostgresBackend.open(options);
            default -> throw new IllegalArgumentException("unknown store '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }
}
