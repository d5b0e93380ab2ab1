package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyException;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import dev.idemlab.idempotency.Outcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The coordinator's calls as Micrometer Observations: {@code idempotency.call} for the whole call,
 * and as its children {@code idempotency.reserve}, {@code idempotency.wait},
 * {@code idempotency.action}, {@code idempotency.complete} and {@code idempotency.release} (see
 * {@link CallObservation.Phase}). Spring Boot turns each into a timer and, with a tracer, a span, so a
 * trace shows where a request's time went. Every observation carries three low-cardinality tags:
 * {@code operation} (a name fixed in code, the route's or the method's, without a client's scope: see
 * {@link #unscoped}), {@code store} (the store's name) and {@code outcome} (the call's {@link Outcome},
 * or the phase's, from a short fixed list).
 *
 * <p>The key is never a tag, of either kind. As a low-cardinality tag it would make one timer per
 * key: a client-chosen, unbounded set of time series that grows until the metrics backend refuses it.
 * As a high-cardinality tag it would go into every exported span, where it outlives the record (a
 * trace is kept for weeks, the key's record for its ttl) and is seen by whoever reads traces, although
 * with the request it is what fetches the stored answer. For the same reason a refusal (in progress,
 * key reuse, a store that failed) is not recorded as the observation's error, since the library's
 * exceptions name the key in their messages: its outcome tag says what happened. Only the action's own
 * exception is recorded, as the application threw it.
 *
 * <p>Loaded only when a registry is configured, so the core runs without Micrometer. Thread-safe.
 */
final class MicrometerObservations implements ObservedCalls {

    static final String CALL = "idempotency.call";
    /** Each outcome's tag, {@code executed}, {@code key-reuse}, as {@code idempotency.calls} spells them: built once. */
    private static final Map<Outcome, String> TAGS = new EnumMap<>(Outcome.class);

    static {
        for (Outcome outcome : Outcome.values()) {
            TAGS.put(outcome, outcome.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
    }
    /** {@code .c-} and 32 hex digits: the scope the servlet filter and the starter append per client. */
    private static final int CLIENT_SCOPE_LENGTH = 35;

    private final ObservationRegistry registry;
    private final String store;

    MicrometerObservations(Object registry, String store) {
        this.registry = (ObservationRegistry) registry;
        this.store = store;
    }

    @Override
    public CallObservation start(IdempotentCall call) {
        String operation = unscoped(call.operation());
        return new Observed(observation(CALL, operation, null), operation, null);
    }

    /**
     * {@code operation} without a client's scope: the servlet filter and the starter scope keys per
     * client by appending {@code .c-} and 32 hex digits of a digest of the client to the operation, one
     * operation per client, which as a tag would make a time series per client. The anonymous scope
     * ({@code .anon}, one per route) is kept.
     */
    static String unscoped(String operation) {
        int scope = operation.length() - CLIENT_SCOPE_LENGTH;
        if (scope <= 0 || !operation.startsWith(".c-", scope)) {
            return operation;
        }
        for (int i = scope + 3; i < operation.length(); i++) {
            char c = operation.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return operation;
            }
        }
        return operation.substring(0, scope);
    }

    private Observation observation(String name, String operation, Observation parent) {
        Observation observation = Observation.createNotStarted(name, registry)
                .lowCardinalityKeyValue("operation", operation)
                .lowCardinalityKeyValue("store", store);
        if (parent != null) {
            observation.parentObservation(parent);
        }
        return observation.start();
    }

    /** What a call that ended in {@code failure} counts as, as {@code idempotency.calls} counts it. */
    static Outcome outcomeOf(Throwable failure) {
        if (failure instanceof IdempotencyInProgressException) {
            return Outcome.IN_PROGRESS;
        } else if (failure instanceof IdempotencyKeyReuseException) {
            return Outcome.KEY_REUSE;
        } else if (failure instanceof IdempotencyStoreUnavailableException) {
            return Outcome.FAILED_CLOSED;
        } else if (failure instanceof IdempotentReplayUnavailableException) {
            return Outcome.REPLAY_UNAVAILABLE;
        } else if (failure instanceof IdempotencyRecordUnreadableException) {
            return Outcome.RECORD_UNREADABLE;
        } else if (failure instanceof IdempotencyInterruptedException) {
            return Outcome.INTERRUPTED;
        }
        return Outcome.ACTION_FAILED;
    }

    /** One started observation: the call's ({@code phase} null) or a phase's. */
    private final class Observed implements CallObservation {

        private final Observation observation;
        private final String operation;
        private final Phase phase;
        private Outcome outcome;

        Observed(Observation observation, String operation, Phase phase) {
            this.observation = observation;
            this.operation = operation;
            this.phase = phase;
        }

        @Override
        public CallObservation phase(Phase child) {
            return new Observed(observation(child.observationName(), operation, observation), operation, child);
        }

        @Override
        public <T, R> DefaultIdempotencyCoordinator.Answer<T, R> answering(
                DefaultIdempotencyCoordinator.Answer<T, R> answer) {
            return (value, answered) -> {
                outcome = answered;
                return answer.of(value, answered);
            };
        }

        @Override
        public void answered() {
            stop(TAGS.get(outcome));
        }

        @Override
        public void answered(Outcome answered) {
            stop(TAGS.get(answered));
        }

        @Override
        public Scope openScope() {
            return observation.openScope()::close;
        }

        @Override
        public void stop(String outcome) {
            observation.lowCardinalityKeyValue("outcome", outcome).stop();
        }

        @Override
        public void failed(Throwable failure) {
            failed(TAGS.get(outcomeOf(failure)), failure);
        }

        @Override
        public void failed(String outcome, Throwable failure) {
            // The action's own exception, as the application threw it; never the library's, which name the key.
            if ((phase == null || phase == Phase.ACTION) && !(failure instanceof IdempotencyException)) {
                observation.error(failure);
            }
            stop(outcome);
        }
    }
}
