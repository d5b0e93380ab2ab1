package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyException;

/**
 * Unknown outcome at a step of a {@link Workflow}: a holder of this request started the remote step and
 * never reached its recovery point, and the step's policy is {@link IfOutcomeUnknown#STOP}. Nothing was
 * run again. The state is kept in the database, so every retry with the key gets this answer instead of a
 * new call until a person or a reconciliation job settles the step with {@link UnknownOutcomes} (it
 * happened, with what; or it did not); the retry after that resumes. HTTP 500: the server cannot say what
 * became of the request, and the client cannot fix it by changing its request.
 */
public final class StepOutcomeUnknownException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String phase;
    private final String fingerprint;

    public StepOutcomeUnknownException(String operation, String key, String phase, String fingerprint) {
        super(operation, key, "unknown outcome at step " + phase + " of key '" + key + "' for " + operation
                + ": a holder started it and never reached its recovery point, and the step's policy is to stop "
                + "rather than run it again; it stays so for every retry until the step is resolved as done or "
                + "not done (UnknownOutcomes)", null);
        this.phase = phase;
        this.fingerprint = fingerprint;
    }

    /** The phase of the step whose outcome is unknown, such as {@code charge_created}. */
    public String phase() {
        return phase;
    }

    /** The fingerprint of the request whose step it is. */
    public String fingerprint() {
        return fingerprint;
    }

    @Override
    public int httpStatus() {
        return 500;
    }
}
