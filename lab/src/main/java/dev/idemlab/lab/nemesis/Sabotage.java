package dev.idemlab.lab.nemesis;

/**
 * What a nemesis run breaks on purpose, to prove that its checker can fail: nothing (the library as
 * a team would use it), the coordinator (the post's result cache in place of the reservation), or the
 * store (one that now and then answers a reserve as if a pending key were absent).
 */
public enum Sabotage {
    /** The library's coordinator over a sound store. */
    NONE("none"),
    /** The lab's result cache stands in for the coordinator: concurrent identical calls both charge. */
    RESULT_CACHE("result-cache"),
    /** The store now and then grants a reserve although another attempt's reservation is there. */
    FORGETFUL_STORE("forgetful-store");

    private final String id;

    Sabotage(String id) {
        this.id = id;
    }

    /** The name on the command line: {@code result-cache}. */
    public String id() {
        return id;
    }
}
