package dev.idemlab.idempotency.internal;

/**
 * One call through the coordinator, or one phase of it, as an observation: the seam between the
 * coordinator and Micrometer's Observation API, so that the coordinator names its phases without
 * loading Micrometer. {@link #NONE} observes nothing and allocates nothing, which is what every call
 * gets unless the builder was given an {@code ObservationRegistry}. Not thread-safe: one per call or
 * phase, used by the thread that runs that step.
 */
interface CallObservation {

    /** Observes nothing: the coordinator's calls when no registry was configured. */
    CallObservation NONE = new CallObservation() { };

    /** Closes a scope opened by {@link #openScope()}. */
    interface Scope extends AutoCloseable {
        Scope NONE = () -> { };

        @Override
        void close();
    }

    /** The phases a call is observed in, each a child of the call's observation. */
    enum Phase {
        /** The store's reserve (with its tries within the patience): outcome {@code acquired}, {@code found} or {@code store-failed}. */
        RESERVE("idempotency.reserve"),
        /**
         * Waiting for an in-flight holder: outcome {@code replayed}, {@code contend} (the key came free
         * or the holder's lease ran out), or the refusal's ({@code in-progress}, {@code key-reuse});
         * {@code cancelled} when a {@code callAsync} stage was cancelled while it waited.
         */
        WAIT("idempotency.wait"),
        /** The action, as the key's holder: outcome {@code ok} or {@code failed}. */
        ACTION("idempotency.action"),
        /**
         * Encoding and storing the result: outcome {@code stored} (written, or left to a background settle
         * after the store failed, counted as a storage error), {@code stale} (another attempt holds or
         * completed the key) or {@code failed}.
         */
        COMPLETE("idempotency.complete"),
        /**
         * Releasing the key after the action failed: outcome {@code released}, {@code stale} (the key was
         * no longer this attempt's) or {@code settling} (the store failed: retried in the background).
         */
        RELEASE("idempotency.release");

        private final String observationName;

        Phase(String observationName) {
            this.observationName = observationName;
        }

        /** The observation's name, which Spring Boot turns into a timer's and a span's name. */
        String observationName() {
            return observationName;
        }
    }

    /** Starts {@code phase} as a child of this observation. */
    default CallObservation phase(Phase phase) {
        return NONE;
    }

    /**
     * Makes this observation the thread's current one until the scope closes, so that what the action
     * observes itself (a provider's HTTP client, a query) nests under it.
     */
    default Scope openScope() {
        return Scope.NONE;
    }

    /**
     * {@code answer}, noting the outcome it is given for {@link #answered()}; {@code answer} itself
     * when nothing is observed, so that an unobserved call allocates nothing.
     */
    default <T, R> DefaultIdempotencyCoordinator.Answer<T, R> answering(DefaultIdempotencyCoordinator.Answer<T, R> answer) {
        return answer;
    }

    /** Ends the call's observation with the outcome its answer was given (see {@link #answering}). */
    default void answered() { }

    /** Ends the call's observation with {@code outcome}, the answer's: for a call whose answer is a stage. */
    default void answered(dev.idemlab.idempotency.Outcome outcome) { }

    /** Ends the observation with {@code outcome}, a low-cardinality tag. */
    default void stop(String outcome) { }

    /**
     * Ends the observation with {@code outcome}, after {@code failure}. The failure is recorded as the
     * observation's error only on the call and its action, and only when it is the application's own:
     * the library's exceptions name the key in their messages, and tracing exports an error's message
     * with the span.
     */
    default void failed(String outcome, Throwable failure) { }

    /**
     * Ends the observation after {@code failure}, with the outcome the failure counts as in
     * {@code idempotency.calls} ({@code in-progress}, {@code key-reuse}, {@code action-failed}, ...),
     * worked out only when observed: an unobserved refusal allocates nothing for it.
     */
    default void failed(Throwable failure) { }
}
