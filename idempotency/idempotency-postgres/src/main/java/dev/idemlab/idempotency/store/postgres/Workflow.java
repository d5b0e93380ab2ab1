package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A multi-step operation with a recovery point per step, in the manner of atomic phases: each local
 * step commits its effect and its recovery point in one transaction, fenced (a holder whose key was
 * taken over commits nothing); each remote step gets a downstream key of its own, derived from the
 * call's key, the request's fingerprint and the step's phase, so that a provider deduplicating on it
 * makes the step happen once however often a retry repeats it, and its recovery point is written once it
 * answered. A retry of the same request (same key, same fingerprint) after a crash or a failure resumes
 * after its last recovery point. Recovery points belong to that one request: a request with another body
 * that reserves the key after this one failed and released it never resumes them, and its first recovery
 * point deletes them. Run it with {@link LocalEffects#workflow(Workflow)}.
 *
 * <p>Before a remote step calls out, a marker that it started is committed on its own (fenced like a
 * recovery point, for the same request); the step's recovery point deletes it. A retry that finds the
 * marker knows the step began and never reached its recovery point: its holder died before its call, in
 * it, or after it, and nobody here can tell which. What the retry does then is the step's
 * {@link IfOutcomeUnknown} policy: call again with the same downstream key (the default, safe only with a
 * provider that deduplicates on it), ask the provider first, or stop with
 * {@link StepOutcomeUnknownException} until a person or a reconciliation job resolves the step
 * ({@link UnknownOutcomes}).
 *
 * <p>Name a phase after what it leaves behind ({@code order_created}, {@code charge_created}), since
 * its recovery point records exactly that. Immutable and thread-safe once built.
 */
public final class Workflow {

    private static final Pattern PHASE = Pattern.compile("[a-z0-9_]{1,64}");

    private final List<Step> steps;

    private Workflow(List<Step> steps) {
        this.steps = List.copyOf(steps);
    }

    /** A builder; not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    List<Step> steps() {
        return steps;
    }

    /** A step whose effect is written through {@code connection}, in a transaction with its recovery point. */
    @FunctionalInterface
    public interface LocalStep {
        /** Writes the effect (never commits); returns what the recovery point records, such as a row's id. */
        String run(Connection connection, Progress progress, IdempotencyContext context) throws Exception;
    }

    /** A step that calls another system, outside any transaction. */
    @FunctionalInterface
    public interface RemoteStep {
        /**
         * Calls the other system, passing {@code downstreamKey} as its idempotency key (the same for every
         * retry of this step of this request, another for a request with another fingerprint on the same
         * key); returns what the recovery point records, such as a charge id.
         */
        String run(Progress progress, String downstreamKey, IdempotencyContext context) throws Exception;
    }

    /**
     * Asks the other system whether a remote step's effect happened under its downstream key, for a step
     * whose outcome is unknown ({@link IfOutcomeUnknown#ASK_FIRST}).
     */
    @FunctionalInterface
    public interface Lookup {
        /**
         * Looks the effect up by {@code downstreamKey} (a provider's "retrieve by idempotency key", or its
         * list of charges filtered by it).
         *
         * @return what the step's recovery point would have recorded (the charge id) if the effect is
         *     there, in which case the step is not run again; empty if the other system has no effect under
         *     that key, in which case the step runs
         * @throws Exception if the other system cannot say: the run fails with it and the step stays
         *     unknown, so the next retry asks again
         */
        Optional<String> find(Progress progress, String downstreamKey, IdempotencyContext context) throws Exception;
    }

    /**
     * What the steps finished so far recorded, phase by phase in their order. The workflow's result, and
     * what a step reads of the steps before it. Immutable.
     *
     * @param outputs each finished phase's output, in the order the phases ran
     */
    public record Progress(Map<String, String> outputs) {

        public Progress {
            outputs = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(outputs, "outputs")));
        }

        static Progress none() {
            return new Progress(Map.of());
        }

        /** Whether {@code phase} has finished. */
        public boolean finished(String phase) {
            return outputs.containsKey(phase);
        }

        /**
         * What {@code phase} recorded.
         *
         * @throws IllegalStateException if that phase has not finished
         */
        public String output(String phase) {
            if (!outputs.containsKey(phase)) {
                throw new IllegalStateException("phase " + phase + " has not finished; finished: " + outputs.keySet());
            }
            return outputs.get(phase);
        }

        /** This progress with {@code phase} finished, having recorded {@code output}; this one is unchanged. */
        public Progress with(String phase, String output) {
            Map<String, String> next = new LinkedHashMap<>(outputs);
            next.put(phase, output);
            return new Progress(next);
        }
    }

    /**
     * One step: exactly one of {@code local} and {@code remote}; a remote one has its policy for an unknown
     * outcome, its lookup when that policy is {@link IfOutcomeUnknown#ASK_FIRST}, and its provider deadline.
     */
    record Step(String phase, LocalStep local, RemoteStep remote, IfOutcomeUnknown ifUnknown, Lookup lookup,
                Duration providerDeadline) { }

    /**
     * How long a remote step's call may still be on its way after its holder's lease ended, unless the step
     * declares another deadline: {@code 30 s}, above the timeouts payment providers' clients use. A retry
     * neither asks the provider ({@link IfOutcomeUnknown#ASK_FIRST}) nor may an operator resolve the step as
     * not done before the step's marker is that old past the lease: a holder paused (not dead) between its
     * marker and its call may still charge until then, and a lookup before it would answer "not found" to a
     * charge that lands after.
     */
    public static final Duration DEFAULT_PROVIDER_DEADLINE = Duration.ofSeconds(30);

    /** Builds a {@link Workflow}. Not thread-safe. */
    public static final class Builder {

        private final List<Step> steps = new ArrayList<>();
        private final Set<String> phases = new HashSet<>();

        private Builder() { }

        /** Adds a local step that leaves {@code phase} behind. */
        public Builder local(String phase, LocalStep step) {
            return add(new Step(checked(phase), Objects.requireNonNull(step, "step"), null, null, null, null));
        }

        /**
         * Adds a remote step that leaves {@code phase} behind, re-run with its downstream key when a retry
         * finds that it started and never reached its recovery point
         * ({@link IfOutcomeUnknown#DEFAULT}: today's behaviour, safe only with a provider that
         * deduplicates on the key).
         */
        public Builder remote(String phase, RemoteStep step) {
            return remote(phase, IfOutcomeUnknown.DEFAULT, step);
        }

        /**
         * Adds a remote step that leaves {@code phase} behind, with what a retry does when it finds that the
         * step started and never reached its recovery point.
         *
         * @throws IllegalArgumentException if {@code ifUnknown} is {@link IfOutcomeUnknown#ASK_FIRST}, which
         *     needs a lookup: use {@link #remoteAskingFirst}
         */
        public Builder remote(String phase, IfOutcomeUnknown ifUnknown, RemoteStep step) {
            return remote(phase, ifUnknown, DEFAULT_PROVIDER_DEADLINE, step);
        }

        /**
         * As {@link #remote(String, IfOutcomeUnknown, RemoteStep)}, with the longest a call of the step may
         * take at its provider ({@link #DEFAULT_PROVIDER_DEADLINE} says what it guards).
         *
         * @throws IllegalArgumentException if {@code providerDeadline} is not positive
         */
        public Builder remote(String phase, IfOutcomeUnknown ifUnknown, Duration providerDeadline, RemoteStep step) {
            Objects.requireNonNull(ifUnknown, "ifUnknown");
            if (ifUnknown == IfOutcomeUnknown.ASK_FIRST) {
                throw new IllegalArgumentException("a step that asks first when its outcome is unknown needs the "
                        + "lookup it asks with: use remoteAskingFirst(phase, lookup, step) for " + phase);
            }
            return add(new Step(checked(phase), null, Objects.requireNonNull(step, "step"), ifUnknown, null,
                    positive(providerDeadline, phase)));
        }

        /**
         * Adds a remote step that leaves {@code phase} behind and, when a retry finds that it started and
         * never reached its recovery point, looks its effect up with {@code lookup} by its downstream key
         * before it runs it again ({@link IfOutcomeUnknown#ASK_FIRST}).
         */
        public Builder remoteAskingFirst(String phase, Lookup lookup, RemoteStep step) {
            return remoteAskingFirst(phase, lookup, DEFAULT_PROVIDER_DEADLINE, step);
        }

        /**
         * As {@link #remoteAskingFirst(String, Lookup, RemoteStep)}, with the longest a call of the step may
         * take at its provider: the lookup waits until the marker is that old past its holder's lease.
         *
         * @throws IllegalArgumentException if {@code providerDeadline} is not positive
         */
        public Builder remoteAskingFirst(String phase, Lookup lookup, Duration providerDeadline, RemoteStep step) {
            return add(new Step(checked(phase), null, Objects.requireNonNull(step, "step"), IfOutcomeUnknown.ASK_FIRST,
                    Objects.requireNonNull(lookup, "lookup"), positive(providerDeadline, phase)));
        }

        private static Duration positive(Duration providerDeadline, String phase) {
            if (providerDeadline == null || providerDeadline.isNegative() || providerDeadline.isZero()) {
                throw new IllegalArgumentException("a remote step's provider deadline is positive: the longest its "
                        + "call may take at the provider; got " + providerDeadline + " for " + phase);
            }
            return providerDeadline;
        }

        /**
         * The workflow.
         *
         * @throws IllegalArgumentException if it has no step
         */
        public Workflow build() {
            if (steps.isEmpty()) {
                throw new IllegalArgumentException("a workflow needs at least one step");
            }
            return new Workflow(steps);
        }

        private Builder add(Step step) {
            steps.add(step);
            return this;
        }

        private String checked(String phase) {
            if (phase == null || !PHASE.matcher(phase).matches()) {
                throw new IllegalArgumentException("a phase is 1 to 64 of a-z, 0-9 and _, named after what it leaves "
                        + "behind (order_created); got " + (phase == null ? "null" : "'" + phase + "'"));
            }
            if (!phases.add(phase)) {
                throw new IllegalArgumentException("phase " + phase + " is in the workflow twice; each names one step");
            }
            return phase;
        }
    }
}
