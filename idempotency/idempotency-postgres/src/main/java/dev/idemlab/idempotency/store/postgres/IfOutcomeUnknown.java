package dev.idemlab.idempotency.store.postgres;

/**
 * What a resumed {@link Workflow} does with a remote step that started and never reached its recovery
 * point: its holder died (or failed, or was taken over) before its call, during it or after it, and the
 * workflow cannot tell which. Declared per step; {@link #DEFAULT} is {@link #RERUN_WITH_DOWNSTREAM_KEY}.
 *
 * <p>Why that default: it is what workflows did before the policy existed, so choosing it changes nothing
 * for a workflow written then; it is right for the providers a workflow's remote step is documented to
 * call, which deduplicate on the idempotency key they are passed (a card network's, Stripe's); and it
 * lets every crash resume without a person, where {@link #STOP} would stop each one, even those where the
 * holder died before it called anyone. With a provider that does not deduplicate it charges twice: such a
 * step must declare {@link #ASK_FIRST} (the provider can be asked) or {@link #STOP} (it cannot).
 */
public enum IfOutcomeUnknown {

    /**
     * Run the step again with the same downstream key: the provider's deduplication on that key makes it
     * happen once. Without that deduplication, a step whose holder died after its call happens twice.
     */
    RERUN_WITH_DOWNSTREAM_KEY,

    /**
     * Look the effect up at the provider by the step's downstream key ({@link Workflow.Lookup}) and continue
     * from what it says: found, the step's recovery point records what the lookup returned and the step is
     * not run again; not found, the step runs. The lookup sees what has landed: a call of an earlier holder
     * that is still on its way (a holder paused rather than dead, a request slower than the lease) may land
     * after the answer "not found", and a provider's fence check does not stop it (it admits the old fence
     * until it has seen a newer one). So the retry asks only once the marker is past its holder's lease and
     * the step's provider deadline ({@link Workflow#DEFAULT_PROVIDER_DEADLINE}); before that it answers
     * {@link dev.idemlab.idempotency.IdempotencyInProgressException}.
     */
    ASK_FIRST,

    /**
     * Run nothing: the workflow ends in a state that says "unknown outcome at step S", kept in the
     * database, and this retry and every later one with the key get {@link StepOutcomeUnknownException}
     * instead of a new call, until a person or a reconciliation job settles it with {@link UnknownOutcomes}.
     */
    STOP;

    /** The policy of a step that declares none: {@link #RERUN_WITH_DOWNSTREAM_KEY}, the behaviour before policies. */
    public static final IfOutcomeUnknown DEFAULT = RERUN_WITH_DOWNSTREAM_KEY;
}
