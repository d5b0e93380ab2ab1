package dev.idemlab.lab.infra;

/**
 * Where the lab should take its servers from.
 *
 * @param redisUrl an explicit Redis URL, or {@code null} to look further (env {@code IDEMLAB_REDIS_URL})
 * @param redisFrom force one origin for Redis, or {@code null} for the first that works
 * @param pgUrl an explicit PostgreSQL JDBC URL, or {@code null} (env {@code IDEMLAB_PG_URL})
 * @param pgFrom force one origin for PostgreSQL, or {@code null}
 * @param durable whether private servers run the durable configuration (PostgreSQL {@code fsync=on},
 *     {@code synchronous_commit=on}; Redis {@code appendonly yes}, {@code appendfsync everysec}) instead
 *     of the fast one they start with; a server given by URL is used as it is either way
 */
public record ProvisioningOptions(String redisUrl, Origin redisFrom, String pgUrl, Origin pgFrom, boolean durable) {

    /** The fast configuration: private servers as they start. */
    public ProvisioningOptions(String redisUrl, Origin redisFrom, String pgUrl, Origin pgFrom) {
        this(redisUrl, redisFrom, pgUrl, pgFrom, false);
    }

    /** Environment variable naming a Redis URL. */
    public static final String REDIS_URL_ENV = "IDEMLAB_REDIS_URL";
    /** Environment variable naming a PostgreSQL JDBC URL. */
    public static final String PG_URL_ENV = "IDEMLAB_PG_URL";

    /** Look everywhere, in the documented order. */
    public static ProvisioningOptions defaults() {
        return new ProvisioningOptions(null, null, null, null);
    }

    /** These options, with private servers in the durable configuration or not. */
    public ProvisioningOptions withDurable(boolean durable) {
        return new ProvisioningOptions(redisUrl, redisFrom, pgUrl, pgFrom, durable);
    }

    /** The Redis URL from the option, else from the environment, else {@code null}. */
    public String effectiveRedisUrl() {
        return redisUrl != null ? redisUrl : blankToNull(System.getenv(REDIS_URL_ENV));
    }

    /** The PostgreSQL URL from the option, else from the environment, else {@code null}. */
    public String effectivePgUrl() {
        return pgUrl != null ? pgUrl : blankToNull(System.getenv(PG_URL_ENV));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
