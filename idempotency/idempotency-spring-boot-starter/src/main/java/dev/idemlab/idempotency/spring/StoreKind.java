package dev.idemlab.idempotency.spring;

/** Where the starter keeps idempotency records: the value of {@code idempotency.store}. */
public enum StoreKind {

    /**
     * In this process's memory: records are lost on restart and not shared between instances, so two
     * instances behind a load balancer each run a retried request once. For tests and single-instance
     * tools only; the starter logs a WARN when it configures it.
     */
    MEMORY,

    /** Redis through Lettuce, on {@code idempotency.redis.uri}; needs {@code idempotency-redis}. */
    REDIS,

    /** PostgreSQL through the application's own {@code DataSource}; needs {@code idempotency-postgres}. */
    POSTGRES
}
