package dev.idemlab.lab.load;

/** The kinds of request whose cost the HTTP filter comparison measures apart ({@link FilterCost}). */
public enum RequestKind {
    /** A fresh key: the filter reserves it, the handler runs, the filter stores the answer. */
    FIRST_CALL("first call"),
    /** A key whose answer is stored: the filter replays it and the handler does not run. */
    REPLAY("replay"),
    /** A key whose first request is still in flight: the filter answers 409 and the handler does not run. */
    IN_FLIGHT_CONFLICT("in-flight conflict");

    private final String label;

    RequestKind(String label) {
        this.label = label;
    }

    /** The name in reports: {@code first call}. */
    public String label() {
        return label;
    }
}
