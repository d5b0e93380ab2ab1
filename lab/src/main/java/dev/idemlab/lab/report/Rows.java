package dev.idemlab.lab.report;

import dev.idemlab.lab.scenario.CallerResult;
import dev.idemlab.lab.scenario.ScenarioRun;

import java.util.List;
import java.util.Map;

/** How a run turns into the post's rows; shared by the table and the Markdown report. */
final class Rows {

    private Rows() { }

    /** Whether a scenario is one row per policy (the race) or one row per caller (a sequence of calls). */
    static boolean isRace(ScenarioRun run) {
        return run.scenario().equals("in-flight") || run.scenario().equals("redelivery");
    }

    /** {@code [ch_1, ch_1]}. */
    static String list(List<String> items) {
        return "[" + String.join(", ", items) + "]";
    }

    /** {@code policy=run    (a result cache)}. */
    static String policyCell(ScenarioRun run) {
        return "policy=" + run.policy() + (run.label().isEmpty() ? "" : " (" + run.label() + ")");
    }

    /** What a caller got, in the post's words: "replayed ch_1", "the action ran anyway: ch_1". */
    static String answer(CallerResult caller) {
        return switch (caller.outcome()) {
            case "replayed" -> "replayed " + caller.response();
            case "waited" -> caller.response() + " (waited for the first call)";
            case "failed-open" -> "the action ran anyway: " + caller.response();
            case "lease-lost" -> caller.response() + " (lease lost: another attempt may have run too)";
            default -> caller.response();
        };
    }

    /**
     * The tail of a per-caller row: "charges made=1", plus storage errors where the run had any. Both count
     * up to this caller's answer, so a first call's row never shows what its retry added.
     */
    static String chargesCell(ScenarioRun run, CallerResult caller) {
        String cell = "charges made=" + caller.chargesAfter();
        if (run.storageErrors() > 0) {
            long errors = caller.storageErrorsAfter() == CallerResult.NOT_COUNTED
                    ? run.storageErrors() : caller.storageErrorsAfter();
            cell += ", storage errors=" + errors + " (" + run.label() + ")";
        }
        return cell;
    }

    /** "provider 300 ms per charge, retry at 50 ms, 2 callers, lease 30000 ms, key order-42-charge". */
    static String settingsLine(ScenarioRun run) {
        Map<String, Object> s = run.settings();
        StringBuilder line = new StringBuilder("provider " + s.get("latencyMs") + " ms per charge");
        if (s.containsKey("broker")) {
            line.append(", consumer B joins at ").append(s.get("retryAtMs")).append(" ms, A's max.poll.interval.ms ")
                    .append(s.get("aMaxPollIntervalMs"));
        } else if (s.containsKey("retryAtMs")) {
            line.append(", retries at ").append(s.get("retryAtMs")).append(" ms, ").append(s.get("callers")).append(" callers");
        }
        line.append(", lease ").append(s.get("leaseMs")).append(" ms, key ").append(s.get("key"));
        if (s.containsKey("broker")) {
            line.append(", broker ").append(s.get("broker"));
        }
        if ("proxy".equals(s.get("callThrough"))) {
            line.append(", charged through Idempotency.proxy");
        }
        return line.toString();
    }
}
