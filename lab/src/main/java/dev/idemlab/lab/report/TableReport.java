package dev.idemlab.lab.report;

import dev.idemlab.lab.scenario.CallerResult;
import dev.idemlab.lab.scenario.ScenarioRun;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Plain-text rows shaped like the post's, one block per scenario:
 * {@code policy=run (a result cache)  responses=[ch_1, ch_1]  charges made=[ch_1, ch_2]}.
 */
final class TableReport {

    private TableReport() { }

    static String render(List<ScenarioRun> runs) {
        // A block of per-call rows names its policy only when the same scenario ran under several.
        Map<String, Long> runsPerScenario = runs.stream()
                .collect(Collectors.groupingBy(ScenarioRun::scenario, Collectors.counting()));
        StringBuilder out = new StringBuilder();
        String lastBlock = null;
        List<String[]> rows = new ArrayList<>();
        for (ScenarioRun run : runs) {
            String block = run.scenario() + " | " + run.store().describe() + " | " + Rows.settingsLine(run);
            if (!block.equals(lastBlock)) {
                flush(rows, out);
                if (lastBlock != null) {
                    out.append('\n');
                }
                out.append(run.scenario()).append("  (store: ").append(run.store().describe()).append(")\n");
                out.append("  ").append(Rows.settingsLine(run)).append('\n');
                lastBlock = block;
            }
            if (!run.note().isEmpty()) {
                flush(rows, out);
                out.append("  ").append(run.note()).append('\n');
            }
            if (Rows.isCrashTable(run)) {
                rows.add(Rows.crashRow(run));
                continue;
            }
            if (!Rows.isRace(run) && runsPerScenario.get(run.scenario()) > 1) {
                flush(rows, out);
                out.append("  ").append(Rows.policyCell(run)).append(":\n");
            }
            addRows(run, rows);
        }
        flush(rows, out);
        return out.toString();
    }

    private static void addRows(ScenarioRun run, List<String[]> rows) {
        if (Rows.isRace(run)) {
            rows.add(new String[] {Rows.policyCell(run), "responses=" + Rows.list(run.responses()),
                    "charges made=" + Rows.list(run.charges())});
            return;
        }
        for (CallerResult caller : run.callers()) {
            rows.add(new String[] {caller.name(), "-> " + Rows.answer(caller), Rows.chargesCell(run, caller)});
        }
    }

    /** Writes the collected rows with every column padded to its widest cell. */
    private static void flush(List<String[]> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int c = 0; c < columns; c++) {
                line.append(c == columns - 1 ? row[c] : pad(row[c], widths[c] + 3));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        rows.clear();
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(Math.max(0, width - s.length()));
    }
}
