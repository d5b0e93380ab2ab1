package dev.idemlab.idempotency;

/** How one call through the coordinator ended, from the caller's side. */
public enum Outcome {
    /** This caller ran the action (it won the reservation). */
    EXECUTED,
    /** A completed record with the same fingerprint was replayed. */
    REPLAYED,
    /** An identical request was in flight; this caller waited and replayed its result. */
    WAITED,
    /** An identical request was in flight and the policy is RAISE. */
    IN_PROGRESS,
    /** The key was seen with a different fingerprint. */
    KEY_REUSE,
    /** No key was given: the action ran without idempotency. */
    BYPASSED,
    /** The store failed and the action ran anyway (fail open). */
    FAILED_OPEN,
    /** The store failed and the call was refused (fail closed). */
    FAILED_CLOSED,
    /** The action threw; the reservation was released and nothing was stored. */
    ACTION_FAILED,
    /** A replay found a record whose result could not be returned. */
    REPLAY_UNAVAILABLE,
    /**
     * This caller ran the action, but its lease was lost while the action ran (a renewal failed, or
     * found the reservation gone): another attempt may have run it too. The caller still got its result.
     */
    LEASE_LOST,
    /** The store holds a record under the key that it cannot read; the call was refused and nothing ran. */
    RECORD_UNREADABLE,
    /** The caller's thread was interrupted before the action ran; nothing ran. */
    INTERRUPTED
}
