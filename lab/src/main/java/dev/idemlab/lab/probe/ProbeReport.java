package dev.idemlab.lab.probe;

import java.util.List;
import java.util.Locale;

/** The conformance table, and the line per violation. Stateless. */
public final class ProbeReport {

    private ProbeReport() { }

    /** The table, a header line first. */
    public static String render(ProbeSettings settings, boolean ledgerOffered, List<ProbeRow> rows) {
        StringBuilder out = new StringBuilder();
        out.append("probe ").append(settings.method()).append(' ').append(settings.url())
                .append("  (").append(settings.concurrency()).append(" concurrent, ")
                .append(settings.token() == null ? "no token" : "token " + settings.token()).append(", ledger: ")
                .append(ledgerOffered ? "GET /ledger" : "not offered, charges not counted").append(")\n");
        int check = width(rows, 0, "check");
        int expected = width(rows, 1, "expected");
        int got = width(rows, 2, "got");
        String format = "  %-" + check + "s  %-" + expected + "s  %-" + got + "s  %s%n";
        out.append(String.format(Locale.ROOT, format, "check", "expected", "got", "verdict"));
        for (ProbeRow row : rows) {
            out.append(String.format(Locale.ROOT, format, row.check(), row.expected(), row.got(), row.verdict().id()));
        }
        for (ProbeRow row : rows) {
            if (row.verdict() == ProbeRow.Verdict.FAIL) {
                out.append("violated (").append(row.check()).append("): ").append(row.rule()).append('\n');
            }
        }
        long failed = rows.stream().filter(r -> r.verdict() == ProbeRow.Verdict.FAIL).count();
        out.append(failed == 0 ? "every check passed\n" : failed + " check(s) failed\n");
        return out.toString();
    }

    private static int width(List<ProbeRow> rows, int column, String title) {
        int width = title.length();
        for (ProbeRow row : rows) {
            String cell = switch (column) {
                case 0 -> row.check();
                case 1 -> row.expected();
                default -> row.got();
            };
            width = Math.max(width, cell.length());
        }
        return width;
    }
}
