package dev.idemlab.lab.infra;

/** Where the server behind a store came from, in the order the lab looks for one. */
public enum Origin {
    /** Given by the user: {@code --redis-url}, {@code --pg-url} or their environment variables. */
    URL("url", "given by URL"),
    /** A server binary found on PATH, started privately. */
    SYSTEM("system", "system binary on PATH, private instance"),
    /** The binary bundled in the lab's own dependencies, started privately. */
    BUNDLED("bundled", "bundled binary, private instance"),
    /** A Testcontainers container. */
    CONTAINER("container", "container"),
    /**
     * A private local Redis Cluster (three masters, three replicas) that the lab forms from the same
     * binary it would start a single server from.
     */
    CLUSTER("cluster", "private local cluster, 3 masters + 3 replicas"),
    /** No server: the store lives in this process. */
    IN_PROCESS("in-process", "in this process");

    private final String id;
    private final String description;

    Origin(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** The short name used on the command line ({@code --redis-from bundled}) and in JSON. */
    public String id() {
        return id;
    }

    public String description() {
        return description;
    }
}
