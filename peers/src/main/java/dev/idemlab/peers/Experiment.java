package dev.idemlab.peers;

/** The post's experiments, by the names the lab uses for them. */
public enum Experiment {
    IN_FLIGHT("in-flight"),
    KEY_REUSE("key-reuse"),
    PROVIDER_TIMEOUT("provider-timeout"),
    STORE_DOWN("store-down");

    private final String id;

    Experiment(String id) {
        this.id = id;
    }

    /** The experiment's name on the command line and in tables. */
    public String id() {
        return id;
    }
}
