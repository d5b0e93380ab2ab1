package dev.idemlab.lab.nemesis;

/**
 * What a nemesis run breaks on purpose, to prove that its checker can fail: nothing (the library as
 * a team would use it), the coordinator (the post's result cache in place of the reservation), or the
 * store (one that now and then answers a reserve as if a pending key were absent), or the HTTP
 * filter's scoping (every client in one scope, so one client can read another's stored response).
 */
public enum Sabotage {
    /** The library's coordinator over a sound store. */
    NONE("none"),
    /** The lab's result cache stands in for the coordinator: concurrent identical calls both charge. */
    RESULT_CACHE("result-cache"),
    /** The store now and then grants a reserve although another attempt's reservation is there. */
    FORGETFUL_STORE("forgetful-store"),
    /**
     * Through an HTTP filter only (servlet or WebFlux): the filter's client resolver names one client for
     * every request, so a key is no longer scoped per client and a client sending another's key with the
     * same request gets that client's stored response (a test double of a filter whose scoping broke).
     */
    SHARED_SCOPE("shared-scope"),
    /**
     * Through Kafka only ({@code --through kafka}): each member commits every record it polled before it
     * handles them, as auto-commit does in effect; a member killed or paused meanwhile leaves committed
     * records nobody finished.
     */
    COMMIT_FIRST("commit-first"),
    /**
     * Through Kafka only: the members run the handler without the adapter (handle, charge with no key,
     * commit the poll), so every record delivered twice is charged twice.
     */
    BARE_HANDLER("bare-handler");

    private final String id;

    Sabotage(String id) {
        this.id = id;
    }

    /** The name on the command line: {@code result-cache}. */
    public String id() {
        return id;
    }
}
