package dev.idemlab.lab.load;

import java.util.List;
import java.util.Objects;

/**
 * Every run of one {@code lab load}: the stores under the policies, with the settings they shared.
 * Immutable and thread-safe.
 *
 * @param settings the load every run got
 * @param runs one per store and policy, in the order they ran
 */
public record LoadComparison(LoadSettings settings, List<LoadRun> runs) {

    public LoadComparison {
        Objects.requireNonNull(settings, "settings");
        runs = List.copyOf(runs);
    }

    /** Whether every run kept what its policy promises. */
    public boolean passed() {
        return runs.stream().allMatch(run -> run.check().passed());
    }

    /** Every failure of every run, prefixed with its store. */
    public List<String> failures() {
        return runs.stream()
                .flatMap(run -> run.check().failures().stream().map(line -> run.server().store() + " " + line))
                .toList();
    }

    /** Requests checked against a ledger, over every run of {@code store}. */
    public long requestsChecked(String store) {
        return runs.stream().filter(run -> run.server().store().equals(store))
                .mapToLong(run -> run.check().requests()).sum();
    }

    /** The stores, in the order they ran. */
    public List<String> stores() {
        return runs.stream().map(run -> run.server().store()).distinct().toList();
    }
}
