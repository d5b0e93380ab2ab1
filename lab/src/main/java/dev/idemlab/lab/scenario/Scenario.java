package dev.idemlab.lab.scenario;

import dev.idemlab.lab.policy.LabPolicy;

import java.util.List;

/** One of the post's experiments: a script of calls against a counting provider. */
public interface Scenario {

    /** The name on the command line: in-flight, key-reuse, provider-timeout, store-down. */
    String name();

    /** One line on what it shows. */
    String summary();

    /**
     * Runs the script once under {@code policy}.
     *
     * @throws CannotStageException if the store cannot stage this scenario (store-down on memory)
     * @throws InterruptedException if interrupted while callers run
     */
    ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException;

    /** The policies {@code scenario all} runs it under. */
    /**
     * The scenario options ({@code --latency-ms}, {@code --lease-s}, ...) this scenario sets for itself
     * to stage its failure, and so ignores: a command that runs it alone refuses them.
     */
    default List<String> fixedOptions() {
        return List.of();
    }

    /**
     * Where this scenario's callers always reach the provider, whatever {@code --provider} says, or
     * {@code null} where {@code --provider} chooses: a command that runs it alone refuses another choice.
     */
    default ProviderChoice fixedProvider() {
        return null;
    }

    /**
     * Why this scenario's charges cannot go through {@code Idempotency.proxy} ({@link CallThrough#PROXY}),
     * or {@code null} where they can: the post's four scenarios, whose callers charge through the lab's
     * own client in this process.
     */
    default String cannotCallThroughProxy() {
        return "its callers do not charge through the lab's own client in this process";
    }

    default List<LabPolicy> policiesForAll() {
        return List.of(LabPolicy.WAIT);
    }
}
