package dev.idemlab.lab.cli;

import dev.idemlab.lab.cost.RecordCost;
import dev.idemlab.lab.cost.ServerTime;

import java.util.List;
import java.util.Locale;

/** {@code lab cost}'s report: a row per store, then how each was counted and on which server. Stateless. */
final class CostReport {

    private CostReport() { }

    /** The commands a script runs, in the order the breakdown names them. */
    private static final List<String> INSIDE = List.of("GET", "TIME", "SET", "PUBLISH", "PTTL");

    static String render(List<RecordCost> costs, List<ServerTime> times, boolean markdown) {
        StringBuilder out = new StringBuilder(render(costs, markdown));
        if (times.isEmpty()) {
            return out.toString();
        }
        out.append(markdown ? "\nServer time per call, by Redis's own counters (`INFO commandstats`, microseconds "
                + "spent in each command; the scripts' `EVALSHA` against the raw `SET` and `GET`). A replay is the "
                + "reserve script finding the completed record, as the coordinator replays; the lookup script, "
                + "what a waiter reads with, is shown beside it, not judged:\n\n"
                + "| store | calls | first call | floor: SET NX PX, SET XX PX | ratio | target | replay | GET | ratio "
                + "| target | lookup | ratio |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
                : "server time per call (INFO commandstats):\n");
        for (ServerTime time : times) {
            out.append(String.format(Locale.ROOT, markdown
                            ? "| %s | %,d | %.2f µs | %.2f µs | %.2fx | %s | %.2f µs | %.2f µs | %.2fx | %s | %.2f µs | %.2fx |%n"
                            : "%-8s %,d calls: first call %.2f µs against %.2f µs for SET NX PX then SET XX PX, %.2fx "
                                    + "(%s); replay %.2f µs against %.2f µs for GET, %.2fx (%s); lookup %.2f µs, "
                                    + "%.2fx%n",
                    time.server().store(), time.calls(), time.firstCallMicros(), time.floorMicros(),
                    time.firstCallRatio(), time.firstCallVerdict(), time.replayMicros(), time.getMicros(),
                    time.replayRatio(), time.replayVerdict(), time.lookupMicros(), time.lookupRatio()));
        }
        out.append(markdown ? "\nWhere the scripts' server time goes (the commands they ran, as counted on their own "
                + "lines, and the rest: entering Lua and its KEYS and ARGV tables, each command's trip through the "
                + "script's client, the replies made into Lua values and back):\n\n" : "");
        for (ServerTime time : times) {
            out.append(String.format(Locale.ROOT, markdown ? "* %s first call: %s%n* %s replay: %s%n"
                            : "%-8s first call: %s%n%-8s replay: %s%n",
                    time.server().store(), ServerTime.breakdown(time.firstCallMicros(), time.firstCallInside(), INSIDE),
                    time.server().store(), ServerTime.breakdown(time.replayMicros(), time.replayInside(), INSIDE)));
        }
        return out.toString();
    }

    static String render(List<RecordCost> costs, boolean markdown) {
        StringBuilder out = new StringBuilder();
        if (markdown) {
            out.append("| store | records | result | per record | bytes per record | raw write | raw bytes | ratio "
                    + "| left by released reservations | target |\n");
            out.append("|---|---|---|---|---|---|---|---|---|---|\n");
        }
        for (RecordCost cost : costs) {
            out.append(markdown ? markdownRow(cost) : plain(cost));
        }
        out.append(markdown ? "\n" : "");
        for (RecordCost cost : costs) {
            out.append(markdown ? "* " : "  ").append(cost.server().store()).append(": ")
                    .append(cost.server().describeWithDurability()).append("; counted by ").append(cost.measuredBy())
                    .append(cost.note().isEmpty() ? "" : "; " + cost.note()).append('\n');
        }
        return out.toString();
    }

    private static String markdownRow(RecordCost cost) {
        return String.format(Locale.ROOT, "| %s | %,d | %d B | %.2f %s | %.0f B | %s | %.0f B | %.2fx | %d of %d | %s |%n",
                cost.server().store(), cost.records(), cost.resultBytes(), cost.unitsPerRecord(), cost.unit(),
                cost.bytesPerRecord(), cost.baseline(), cost.baselineBytesPerRecord(), cost.ratio(),
                cost.leftByReleased(), cost.released(), cost.verdict());
    }

    private static String plain(RecordCost cost) {
        return String.format(Locale.ROOT, "%-8s %,d records of a %d B result: %.2f %s, %.0f B per record; "
                        + "%s: %.0f B; ratio %.2fx (%s); %d released reservations left %d%n",
                cost.server().store(), cost.records(), cost.resultBytes(), cost.unitsPerRecord(), cost.unit(),
                cost.bytesPerRecord(), cost.baseline(), cost.baselineBytesPerRecord(), cost.ratio(),
                cost.verdict(), cost.released(), cost.leftByReleased());
    }
}
