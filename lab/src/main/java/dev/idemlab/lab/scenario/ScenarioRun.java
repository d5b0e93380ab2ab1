package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.ServerInfo;

import java.util.List;
import java.util.Map;

/**
 * One run of one scenario under one policy: what every caller got, and what the provider's ledger
 * says was charged. Every figure here was read off the ledger or the coordinator's counters.
 *
 * @param scenario the scenario's name
 * @param policy the in-flight policy, lower case
 * @param label the post's name for the row: "a result cache", "the default", ...
 * @param store the store and the server behind it
 * @param settings the knobs the run used (latency, retry time, lease, key, ...)
 * @param callers per caller, in the order they called
 * @param charges the provider ledger's charge ids, in order
 * @param storageErrors storage errors the coordinator counted
 * @param note a line about how the run was staged (e.g. how the store was taken down), or empty
 * @param timeline the recorded messages, in time order
 */
public record ScenarioRun(String scenario, String policy, String label, ServerInfo store, Map<String, Object> settings,
                          List<CallerResult> callers, List<String> charges, long storageErrors, String note,
                          List<TimelineEvent> timeline) {

    public ScenarioRun {
        settings = Map.copyOf(settings);
        callers = List.copyOf(callers);
        charges = List.copyOf(charges);
        timeline = List.copyOf(timeline);
    }

    /** What each caller got, in caller order: charge ids or exception class names. */
    public List<String> responses() {
        return callers.stream().map(CallerResult::response).toList();
    }
}
