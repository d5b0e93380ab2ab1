package dev.idemlab.provider;

/**
 * Callbacks from inside the provider, on the charging thread. Scenarios use them to record a
 * timeline; tests use them to learn that a caller is inside the provider. Implementations must be
 * thread-safe when calls run concurrently.
 */
public interface ProviderObserver {

    /** Nothing observed. */
    ProviderObserver NONE = new ProviderObserver() { };

    /**
     * A call entered the provider; nothing is charged yet. When fences are checked, a fenced
     * call's fence is already admitted and recorded (or refused: {@link #refused} follows).
     */
    default void callStarted(int callNumber, String orderId, long amount) { }

    /** A call was charged and the charge is in the ledger. */
    default void charged(int callNumber, Charge charge) { }

    /** A call carried a key the provider had already charged; it got that charge, no new entry. */
    default void replayed(int callNumber, Charge charge) { }

    /** A call failed by the fault plan; nothing was charged. */
    default void timedOut(int callNumber, String orderId) { }

    /**
     * A call charged (or replayed) and then failed by the fault plan: the caller gets a timeout
     * although {@code charge} is in the ledger.
     */
    default void replyLost(int callNumber, Charge charge) { }

    /** A call was refused for a stale fence or a reused key; nothing was charged. */
    default void refused(int callNumber, ProviderException reason) { }
}
