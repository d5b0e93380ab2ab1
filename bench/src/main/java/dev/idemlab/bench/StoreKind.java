package dev.idemlab.bench;

/**
 * The store a benchmark runs against, chosen with {@code -p store=MEMORY,REDIS,POSTGRES}. Each kind
 * names the lab backend that provisions its server and the raw operations that serve as its
 * baselines, so that the summary page can label them without guessing.
 */
public enum StoreKind {

    MEMORY("memory", "ConcurrentHashMap.putIfAbsent", "putIfAbsent then replace", "ConcurrentHashMap.get"),
    REDIS("redis", "EVALSHA of a minimal reserve script", "SET NX PX, then SET XX PX", "GET"),
    POSTGRES("postgres", "INSERT ... ON CONFLICT DO NOTHING", "INSERT ... ON CONFLICT DO NOTHING, then UPDATE", "SELECT by key");

    private final String backendName;
    private final String reserveLabel;
    private final String plainWriteLabel;
    private final String plainReadLabel;

    StoreKind(String backendName, String reserveLabel, String plainWriteLabel, String plainReadLabel) {
        this.backendName = backendName;
        this.reserveLabel = reserveLabel;
        this.plainWriteLabel = plainWriteLabel;
        this.plainReadLabel = plainReadLabel;
    }

    /** The name {@code StoreBackends.open} knows this store by. */
    public String backendName() {
        return backendName;
    }

    /** What the raw reserve baseline does: the one atomic conditional write a reservation is built on. */
    public String reserveLabel() {
        return reserveLabel;
    }

    /** What the raw plain write baseline of a first call does, without the library. */
    public String plainWriteLabel() {
        return plainWriteLabel;
    }

    /** What the raw plain read baseline of a replay does. */
    public String plainReadLabel() {
        return plainReadLabel;
    }
}
