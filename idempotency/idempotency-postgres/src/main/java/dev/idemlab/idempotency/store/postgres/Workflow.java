package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

    /** One step: exactly one of {@code local} and {@code remote}. */
    record Step(String phase, LocalStep local, RemoteStep remote) { }

    /** Builds a {@link Workflow}. Not thread-safe. */
    public static final class Builder {

        private final List<Step> steps = new ArrayList<>();
        private final Set<String> phases = new HashSet<>();

        private Builder() { }

        /** Adds a local step that leaves {@code phase} behind. */
        public Builder local(String phase, LocalStep step) {
            return add(new Step(checked(phase), Objects.requireNonNull(step, "step"), null));
        }

        /** Adds a remote step that leaves {@code phase} behind. */
        public Builder remote(String phase, RemoteStep step) {
            return add(new Step(checked(phase), null, Objects.requireNonNull(step, "step")));
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
