package dev.idemlab.examples.payments;

/**
 * One request's attempt at a charge: whether the charge ran for this request, or its answer was
 * another request's (a replay). The controller marks a replay ({@code Idempotent-Replayed: true}).
 * Used by the request's own thread only.
 */
public final class ChargeAttempt {

    private boolean ran;

    /** Called by the business code when it runs for this request. */
    void ran() {
        ran = true;
    }

    /** Whether the answer came from another request's charge rather than one made for this request. */
    public boolean replayed() {
        return !ran;
    }
}
