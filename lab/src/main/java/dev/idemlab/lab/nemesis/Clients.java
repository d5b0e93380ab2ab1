package dev.idemlab.lab.nemesis;

/**
 * Who sends the workload over HTTP. Every mode has three clients sending every key for their own
 * orders; the modes differ in how the clients name themselves, which is what the filter scopes keys by.
 */
public enum Clients {
    /** Three clients with bearer tokens. */
    BEARER("bearer"),
    /** Two clients with bearer tokens and one without, on a route that allows anonymous clients. */
    ANONYMOUS("anonymous"),
    /**
     * As {@link #ANONYMOUS}, with one of the bearer clients authenticated as a principal named
     * {@code anonymous}: an authenticated client must never share a scope with the ones that name no
     * client, whatever its name.
     */
    NAMED_ANONYMOUS("named-anonymous");

    private final String id;

    Clients(String id) {
        this.id = id;
    }

    /** The name on the command line: {@code named-anonymous}. */
    public String id() {
        return id;
    }
}
