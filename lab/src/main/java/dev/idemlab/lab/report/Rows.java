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
        return run.scenario().equals("in-flight") || run.scenario().equals("redelivery")
                || run.scenario().equals("share-lock-expiry");
    }

    /** Whether a run is a row of the crashed-consumer table: one row per run, with the read-back columns. */
    static boolean isCrashTable(ScenarioRun run) {
        return run.scenario().equals("redelivery-crash");
    }

    /**
     * The crashed-consumer table's row: the mode and boundary, what each consumer got, the ledger, the
     * order rows where the mode keeps them, and whether the group committed past the record.
     */
    static String[] crashRow(ScenarioRun run) {
        Object orders = run.settings().get("orders");
        Object committed = run.settings().get("committedOffset");
        return new String[] {policyCell(run),
                "responses=" + list(run.callers().stream().map(Rows::answer).toList()),
                "charges made=" + list(run.charges()),
                "order rows=" + (orders == null ? "n/a" : orders),
                Boolean.TRUE.equals(run.settings().get("recordHandled"))
                        ? "handled (group offset " + committed + " committed)"
                        : "NOT handled (group offset " + committed + ")"};
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
        if (s.containsKey("recordLockMs")) {
            line.append(", consumer B joins the share group at ").append(s.get("retryAtMs"))
                    .append(" ms, acquisition lock ").append(s.get("recordLockMs"))
                    .append(" ms, an in-flight delivery released after ").append(s.get("skipBackoffMs")).append(" ms");
        } else if (s.containsKey("aMaxPollIntervalMs")) {
            line.append(", consumer B joins at ").append(s.get("retryAtMs")).append(" ms, A's max.poll.interval.ms ")
                    .append(s.get("aMaxPollIntervalMs"));
        } else if (s.containsKey("sessionTimeoutMs")) {
            line.append(", consumer A in a child JVM killed with SIGKILL, then B joins the group; session.timeout.ms ")
                    .append(s.get("sessionTimeoutMs"));
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
