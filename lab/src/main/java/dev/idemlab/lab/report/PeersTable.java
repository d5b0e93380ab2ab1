package dev.idemlab.lab.report;

import dev.idemlab.lab.peers.LibraryRow;
import dev.idemlab.lab.peers.PeerCell;
import dev.idemlab.lab.peers.PeerMatrix;
import dev.idemlab.peers.Experiment;
import dev.idemlab.peers.LoadReport;

import java.util.Locale;

/**
 * Plain text: the post's responses-vs-charges rows per library, then the matrix, the load run and
 * the gate.
 */
final class PeersTable {

    private static final String MATRIX_CELL = "%-24s";

    private PeersTable() { }

    static String render(PeerMatrix matrix) {
        StringBuilder out = new StringBuilder();
        out.append("peers  (redis: ").append(matrix.redis().describe()).append(")\n");
        out.append("  ").append(matrix.persistence()).append('\n');
        if (matrix.postgres() != null) {
            out.append("  postgres: ").append(matrix.postgres().describe()).append("; ").append(matrix.postgresPersistence())
                    .append('\n');
        }
        out.append("  ").append(PeersReport.timing(matrix.options())).append('\n');
        out.append("  store-down: ").append(matrix.storeDown()).append('\n');
        for (LibraryRow row : matrix.rows()) {
            out.append('\n').append(row.name()).append(' ').append(row.version()).append("  (")
                    .append(row.store().name().toLowerCase(Locale.ROOT)).append(")\n");
            out.append("  ").append(row.wiring()).append('\n');
            int width = row.cells().stream().mapToInt(c -> responses(c).length()).max().orElse(0);
            for (PeerCell cell : row.cells()) {
                out.append(String.format("  %-17s", cell.experiment().id()));
                if (cell.result() == null || cell.result().calls().isEmpty()) {
                    out.append(cell.words()).append(": ").append(cell.why()).append('\n');
                    continue;
                }
                out.append(String.format("%-" + width + "s  %-28s -> %s%n", responses(cell),
                        "charges made=" + cell.result().chargeIds(), cell.words()));
                out.append(String.format("  %-17s   why: %s%n", "", cell.why()));
            }
        }
        matrix(matrix, out);
        if (matrix.load() != null) {
            out.append("\nload  (").append(PeersReport.loadShape(matrix.load())).append(")\n");
            for (LibraryRow row : matrix.rows()) {
                load(row, out);
            }
        }
        out.append('\n').append(PeersReport.gateLine(matrix)).append('\n');
        return out.toString();
    }

    private static String responses(PeerCell cell) {
        return cell.result() == null ? "" : "responses=" + cell.result().responses();
    }

    private static void matrix(PeerMatrix matrix, StringBuilder out) {
        int nameWidth = matrix.rows().stream().mapToInt(r -> r.name().length()).max().orElse(7) + 2;
        out.append("\nmatrix  (library x experiment, from the ledger and the responses)\n");
        out.append(String.format("  %-" + nameWidth + "s", "library"));
        for (Experiment experiment : Experiment.values()) {
            out.append(String.format(MATRIX_CELL, experiment.id()));
        }
        out.setLength(out.length() - trailingBlanks(out));
        out.append('\n');
        for (LibraryRow row : matrix.rows()) {
            out.append(String.format("  %-" + nameWidth + "s", row.name()));
            for (Experiment experiment : Experiment.values()) {
                out.append(String.format(MATRIX_CELL, row.cell(experiment).words()));
            }
            out.setLength(out.length() - trailingBlanks(out));
            out.append('\n');
        }
    }

    private static void load(LibraryRow row, StringBuilder out) {
        if (row.loadFailure() != null) {
            out.append(String.format("  %-22s not run: %s%n", row.name(), row.loadFailure()));
            return;
        }
        LoadReport load = row.load();
        if (load == null) {
            return;
        }
        out.append(String.format(Locale.ROOT, "  %-22s requests=%-5d charges=%-5d duplicates=%-5d per 100,000=%-7s "
                        + "keys charged twice or more=%d of %d%n", row.name(), load.requests(), load.charges(),
                load.duplicateCharges(), PeersReport.per100k(load), load.keysChargedMoreThanOnce(), load.repetitions()));
        out.append(String.format("  %-22s responses: %s%n", "", PeersReport.loadResponses(load)));
    }

    private static int trailingBlanks(StringBuilder out) {
        int n = 0;
        while (n < out.length() && out.charAt(out.length() - 1 - n) == ' ') {
            n++;
        }
        return n;
    }
}
