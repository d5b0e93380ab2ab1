package dev.idemlab.peers;

/** Where a peer keeps its idempotency records. */
public enum StoreKind {
    /** In the JVM's heap: nothing to lose, nothing shared between processes. */
    MEMORY,
    /** A Redis server. */
    REDIS,
    /** A PostgreSQL server (DBOS's system database). */
    POSTGRES
}
