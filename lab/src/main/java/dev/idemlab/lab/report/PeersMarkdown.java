package dev.idemlab.lab.report;

import dev.idemlab.lab.peers.DocumentedPromise;
import dev.idemlab.lab.peers.LibraryRow;
import dev.idemlab.lab.peers.PeerCell;
import dev.idemlab.lab.peers.PeerMatrix;
import dev.idemlab.peers.Call;
import dev.idemlab.peers.Experiment;
import dev.idemlab.peers.ExperimentResult;
import dev.idemlab.peers.LoadReport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Markdown: the matrix first, then per library its wiring, the post's responses-vs-charges table and
 * a Mermaid sequence diagram of its in-flight run (each call as sent and as answered, and the ledger),
 * then the load run and the gate.
 */
final class PeersMarkdown {

    private PeersMarkdown() { }

    static String render(PeerMatrix matrix) {
        StringBuilder out = new StringBuilder();
        out.append("Redis: ").append(matrix.redis().describe()).append("; ").append(matrix.persistence())
                .append(".\n");
        if (matrix.postgres() != null) {
            out.append("PostgreSQL: ").append(matrix.postgres().describe()).append("; ")
                    .append(matrix.postgresPersistence()).append(".\n");
        }
        out.append(capitalize(PeersReport.timing(matrix.options()))).append(". Store down: ")
                .append(matrix.storeDown()).append(".\n\n");
        out.append("## Matrix\n\n| library | version |");
        for (Experiment experiment : Experiment.values()) {
            out.append(' ').append(experiment.id()).append(" |");
        }
        out.append("\n|---|---|").append("---|".repeat(Experiment.values().length)).append('\n');
        for (LibraryRow row : matrix.rows()) {
            out.append("| `").append(row.name()).append("` | ").append(row.version()).append(" |");
            for (Experiment experiment : Experiment.values()) {
                out.append(' ').append(row.cell(experiment).words()).append(" |");
            }
            out.append('\n');
        }
        out.append('\n');
        promises(matrix, out);
        if (matrix.load() != null) {
            load(matrix, out);
        }
        for (LibraryRow row : matrix.rows()) {
            library(row, out);
        }
        out.append(PeersReport.gateLine(matrix)).append('\n');
        return out.toString();
    }

    private static void promises(PeerMatrix matrix, StringBuilder out) {
        out.append("## What each library's documentation promises, what the ledger shows\n\n")
                .append("| library | documentation | the ledger and the responses, this run |\n|---|---|---|\n");
        for (LibraryRow row : matrix.rows()) {
            String promise = DocumentedPromise.of(row.name())
                    .map(p -> "\"" + p.phrase() + "\" (" + p.page() + ")").orElse("");
            out.append("| `").append(row.name()).append("` | ").append(cell(promise)).append(" | ")
                    .append(cell(shown(row))).append(" |\n");
        }
        out.append('\n');
    }

    /** The in-flight row, every experiment that was not correct, and the load figure. */
    private static String shown(LibraryRow row) {
        List<String> parts = new ArrayList<>();
        PeerCell inFlight = row.cell(Experiment.IN_FLIGHT);
        if (inFlight.result() != null) {
            parts.add("in-flight: responses `" + inFlight.result().responses() + "`, charges `"
                    + inFlight.result().chargeIds() + "`, " + inFlight.words());
        }
        for (PeerCell cell : row.cells()) {
            if (!cell.correct() && (cell != inFlight || inFlight.result() == null)) {
                parts.add(cell.experiment().id() + ": " + cell.words());
            }
        }
        if (row.load() != null) {
            parts.add("load: " + PeersReport.per100k(row.load()) + " duplicate charges per 100,000 requests");
        }
        return String.join("; ", parts);
    }

    private static void load(PeerMatrix matrix, StringBuilder out) {
        out.append("## Load\n\n").append(capitalize(PeersReport.loadShape(matrix.load()))).append(".\n\n");
        out.append("| library | requests | charges | duplicate charges | per 100,000 requests | keys charged twice or more "
                + "| responses |\n|---|---|---|---|---|---|---|\n");
        for (LibraryRow row : matrix.rows()) {
            LoadReport load = row.load();
            if (load == null) {
                if (row.loadFailure() != null) {
                    out.append("| `").append(row.name()).append("` | not run: ").append(cell(row.loadFailure()))
                            .append(" | | | | | |\n");
                }
                continue;
            }
            out.append("| `").append(row.name()).append("` | ").append(load.requests()).append(" | ")
                    .append(load.charges()).append(" | ").append(load.duplicateCharges()).append(" | ")
                    .append(PeersReport.per100k(load)).append(" | ").append(load.keysChargedMoreThanOnce())
                    .append(" of ").append(load.repetitions()).append(" | ").append(PeersReport.loadResponses(load))
                    .append(" |\n");
        }
        out.append('\n');
    }

    private static void library(LibraryRow row, StringBuilder out) {
        out.append("## `").append(row.name()).append("` ").append(row.version()).append("\n\n")
                .append(cell(row.wiring())).append(".\n\n");
        out.append("| experiment | responses | charges made | verdict | why |\n|---|---|---|---|---|\n");
        for (PeerCell cell : row.cells()) {
            ExperimentResult result = cell.result();
            boolean calls = result != null && !result.calls().isEmpty();
            out.append("| ").append(cell.experiment().id()).append(" | ")
                    .append(calls ? "`" + result.responses() + "`" : "").append(" | ")
                    .append(calls ? "`" + result.chargeIds() + "`" : "").append(" | ")
                    .append(cell.words()).append(" | ").append(cell(cell.why())).append(" |\n");
        }
        out.append('\n');
        ExperimentResult inFlight = row.cell(Experiment.IN_FLIGHT).result();
        if (inFlight != null && !inFlight.calls().isEmpty()) {
            diagram(row.name(), inFlight, out);
        }
    }

    /** The in-flight run as the callers saw it: each call sent and answered, then the provider's ledger. */
    private static void diagram(String library, ExperimentResult run, StringBuilder out) {
        record Event(long atMs, String line) { }
        List<Event> events = new ArrayList<>();
        for (Call call : run.calls()) {
            String id = participant(call.caller());
            events.add(new Event(call.startMs(), "    " + id + "->>L: t=" + call.startMs() + " ms charge "
                    + mermaidText(call.request().orderId()) + " " + call.request().amount()));
            events.add(new Event(call.endMs(), "    L-->>" + id + ": t=" + call.endMs() + " ms "
                    + mermaidText(call.response().brief())));
        }
        events.sort(Comparator.comparingLong(Event::atMs));
        out.append("```mermaid\nsequenceDiagram\n");
        run.calls().forEach(call -> out.append("    participant ").append(participant(call.caller())).append(" as ")
                .append(mermaidText(call.caller())).append('\n'));
        out.append("    participant L as ").append(mermaidText(library)).append('\n');
        events.forEach(event -> out.append(event.line()).append('\n'));
        out.append("    Note over L: provider ledger ").append(mermaidText(run.chargeIds().toString())).append('\n');
        out.append("```\n\n");
    }

    private static String participant(String caller) {
        return "C" + caller.replaceAll("[^A-Za-z0-9]", "");
    }

    /** Mermaid ends a message at ';' and starts a comment at '%%' and an entity at '#'. */
    private static String mermaidText(String text) {
        return text.replace(';', ',').replace('#', ' ').replace("%%", "%");
    }

    /** A Markdown table cell: no pipe, no line break. */
    private static String cell(String text) {
        return text.replace('|', '/').replace('\n', ' ');
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
