package dev.idemlab.lab.nemesis;

import java.util.Locale;

/**
 * One key's history as a Mermaid Gantt chart: a row per call from sent to answered (its action inside
 * it), and the faults that were on meanwhile, times in milliseconds since the run began. Stateless.
 */
final class Timeline {

    private Timeline() { }

    static String mermaid(NemesisHistory history, int key) {
        String nl = System.lineSeparator();
        StringBuilder chart = new StringBuilder("```mermaid").append(nl).append("gantt").append(nl)
                .append("    title key ").append(key).append(", seed ").append(history.settings().seed()).append(nl)
                .append("    dateFormat x").append(nl).append("    axisFormat %S.%L").append(nl);
        long from = Long.MAX_VALUE;
        long to = 0;
        chart.append("    section calls").append(nl);
        for (CallRecord call : history.calls()) {
            if (call.key != key) {
                continue;
            }
            long end = call.answered() ? call.answeredAt() : history.elapsedNanos();
            from = Math.min(from, call.sentAt());
            to = Math.max(to, end);
            chart.append(task("call " + call.id + " " + (call.async ? "async " : "") + call.answer(), "",
                    call.sentAt(), end));
            if (call.actionStartedAt() != 0) {
                chart.append(task("action of " + call.id + (call.charged() == null ? "" : " " + call.charged()), "active, ",
                        call.actionStartedAt(), Math.max(call.actionStartedAt(), end)));
            }
        }
        chart.append("    section faults").append(nl);
        for (FaultEvent fault : history.faults()) {
            if (fault.overlaps(from, to)) {
                chart.append(task(fault.kind().id(), "crit, ", fault.startedAt(), Math.max(fault.endedAt(), fault.startedAt() + 1_000_000)));
            }
        }
        return chart.append("```").append(nl).toString();
    }

    private static String task(String name, String tags, long fromNanos, long toNanos) {
        return String.format(Locale.ROOT, "    %s :%s%d, %d%n", name.replace(':', ' '), tags, fromNanos / 1_000_000,
                Math.max(fromNanos / 1_000_000 + 1, toNanos / 1_000_000));
    }
}
