package dev.idemlab.lab.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.idemlab.lab.peers.CrashedWorkerTable;
import dev.idemlab.lab.peers.DbosCrashedWorker;
import dev.idemlab.lab.peers.DocumentedPromise;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code lab peers crashed-worker} in the three forms: the table (one row per boundary, one column per
 * DBOS setting and per project mode, each cell the orders, charges and receipts read back), every DBOS
 * run in detail, and what DBOS's documentation promises.
 */
public final class CrashedWorkerReport {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private CrashedWorkerReport() { }

    /** Renders {@code table} in {@code format}. */
    public static String render(ReportFormat format, CrashedWorkerTable table) {
        return switch (format) {
            case JSON -> json(table);
            case MARKDOWN -> markdown(table);
            case TABLE -> text(table);
        };
    }

    /** The boundary-by-column grid: column name to (boundary to cell words), in column order. */
    private static Map<String, Map<String, String>> grid(CrashedWorkerTable table) {
        Map<String, Map<String, String>> columns = new LinkedHashMap<>();
        for (DbosCrashedWorker.Cell cell : table.dbos()) {
            if (cell.fault() == DbosCrashedWorker.Fault.CRASH) {
                columns.computeIfAbsent("DBOS, downstream key " + (cell.downstreamKey() ? "on" : "off"),
                        k -> new LinkedHashMap<>()).put(cell.phase(), words(cell.once(), cell.orders(),
                        cell.charges().size(), cell.receipts().size()));
            }
        }
        for (CrashedWorkerTable.ProjectRow row : table.project()) {
            columns.computeIfAbsent(row.label(), k -> new LinkedHashMap<>()).put(row.phase(),
                    words(row.once(), row.orders(), row.charges().size(), row.receipts()));
        }
        return columns;
    }

    private static String words(boolean once, int orders, int charges, int receipts) {
        String counts = counts(orders, charges, receipts);
        return once ? counts : "**" + counts + "**";
    }

    private static String counts(int orders, int charges, int receipts) {
        return orders + (orders == 1 ? " order, " : " orders, ") + charges + (charges == 1 ? " charge, " : " charges, ")
                + receipts + (receipts == 1 ? " receipt" : " receipts");
    }

    private static Set<String> phases(CrashedWorkerTable table) {
        Set<String> phases = new LinkedHashSet<>();
        table.dbos().stream().filter(c -> c.fault() == DbosCrashedWorker.Fault.CRASH).forEach(c -> phases.add(c.phase()));
        table.project().forEach(row -> phases.add(row.phase()));
        return phases;
    }

    private static String markdown(CrashedWorkerTable table) {
        StringBuilder out = new StringBuilder();
        out.append("PostgreSQL: ").append(table.postgres().describeWithDurability()).append(". DBOS Transact ")
                .append(table.dbosVersion()).append(": executor id `local` (its default) in the worker and in the "
                        + "executor that recovers, one pinned application version, admin server off; each run in a "
                        + "schema of its own, dropped afterwards. Provider and mailer: 50 ms per call, deduplicating "
                        + "on a key when one is passed.\n\n");
        Map<String, Map<String, String>> grid = grid(table);
        out.append("## Killed after each step boundary (orders, charges, receipts read back)\n\n| killed after |");
        grid.keySet().forEach(column -> out.append(' ').append(column).append(" |"));
        out.append("\n|---|").append("---|".repeat(grid.size())).append('\n');
        for (String phase : phases(table)) {
            out.append("| `").append(phase).append("` |");
            grid.values().forEach(column -> out.append(' ').append(column.getOrDefault(phase, "not run")).append(" |"));
            out.append('\n');
        }
        out.append("\nBold: anything but one order, one charge and one receipt.\n\n## Every DBOS run\n\n")
                .append("| worker | after | downstream key | orders (paid with) | charges | receipts | the client's retry "
                        + "got | the worker got | DBOS status |\n|---|---|---|---|---|---|---|---|---|\n");
        for (DbosCrashedWorker.Cell cell : table.dbos()) {
            out.append("| ").append(cell.fault() == DbosCrashedWorker.Fault.CRASH ? "SIGKILL" : "SIGSTOP, recovered "
                    + "elsewhere, SIGCONT").append(" | `").append(cell.phase()).append("` | ")
                    .append(cell.downstreamKey() ? "on" : "off").append(" | ").append(cell.orders()).append(" (")
                    .append(String.join(", ", cell.paidWith())).append(") | `").append(cell.charges()).append("` | `")
                    .append(cell.receipts()).append("` | ").append(cell.answer()).append(" | ")
                    .append(cell.workerAnswer()).append(" | ").append(cell.status()).append(" |\n");
        }
        out.append("\n## What DBOS's documentation promises\n\n");
        for (DocumentedPromise promise : promises()) {
            out.append("* \"").append(promise.phrase()).append("\" (").append(promise.page()).append(")\n");
        }
        failures(table, out, "\n");
        return out.toString();
    }

    private static String text(CrashedWorkerTable table) {
        StringBuilder out = new StringBuilder();
        out.append("crashed worker  (postgres: ").append(table.postgres().describeWithDurability()).append(")\n")
                .append("  dbos ").append(table.dbosVersion()).append(", executor id local, recovered by a second "
                        + "executor's launch\n\n");
        Map<String, Map<String, String>> grid = grid(table);
        for (String phase : phases(table)) {
            out.append("killed after ").append(phase).append('\n');
            grid.forEach((column, cells) -> out.append(String.format("  %-50s %s%n", column,
                    cells.getOrDefault(phase, "not run").replace("**", "") + (cells.getOrDefault(phase, "")
                            .startsWith("**") ? "  <- not once" : ""))));
        }
        List<DbosCrashedWorker.Cell> paused = new ArrayList<>(table.dbos());
        paused.removeIf(cell -> cell.fault() != DbosCrashedWorker.Fault.PAUSE);
        for (DbosCrashedWorker.Cell cell : paused) {
            out.append("\npaused after ").append(cell.phase()).append(", downstream key ")
                    .append(cell.downstreamKey() ? "on" : "off").append(": ").append(cell.orders())
                    .append(" order(s) paid with ").append(cell.paidWith()).append(", charges ").append(cell.charges())
                    .append(", receipts ").append(cell.receipts()).append("; the retry got ").append(cell.answer())
                    .append("; the paused worker got ").append(cell.workerAnswer()).append('\n');
        }
        failures(table, out, "\n");
        return out.toString();
    }

    private static void failures(CrashedWorkerTable table, StringBuilder out, String before) {
        if (!table.failures().isEmpty()) {
            out.append(before).append("not run:\n");
            table.failures().forEach(failure -> out.append("* ").append(failure).append('\n'));
        }
    }

    private static List<DocumentedPromise> promises() {
        return CrashedWorkerTable.promises();
    }

    private static String json(CrashedWorkerTable table) {
        try {
            return MAPPER.writeValueAsString(table) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
