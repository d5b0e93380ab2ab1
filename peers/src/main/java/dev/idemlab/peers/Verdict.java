package dev.idemlab.peers;

/**
 * The outcome of one experiment on one peer, computed from the provider's ledger and the callers'
 * responses (see {@link Judge} for the rules per experiment).
 */
public enum Verdict {

    /**
     * The ledger holds what the request deserved (one charge; none for a request that was rightly
     * refused) and every caller was told the truth: the charge id that is in the ledger, or an error
     * that says what happened (in progress, key reused, store unavailable).
     */
    ONE_CHARGE_CONSISTENT,

    /** The ledger holds more than one charge for one request. */
    DOUBLE_CHARGE,

    /**
     * The ledger holds no duplicate, but a caller was told something false or useless: {@code null},
     * an object that is not the charge, another charge's id, an exception a client cannot act on; or
     * a request that should have charged did not, or one that should have been refused charged.
     */
    WRONG_ANSWER,

    /** The library has no way to take part in the experiment (an in-memory store cannot go down). */
    NOT_SUPPORTED
}
