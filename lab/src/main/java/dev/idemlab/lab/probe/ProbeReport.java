package dev.idemlab.lab.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The conformance report in three forms. The table is read on a terminal: a row's verdict comes first and
 * no line is wider than {@link #WIDTH} columns, its expectation and its answer wrapped on lines of their
 * own (they once made a row about 280 columns wide, the verdict last and off screen). Markdown keeps each
 * row whole on one line, for a page; JSON gives every field, for machines. Stateless.
 */
public final class ProbeReport {

    /** The widest line the table prints: a terminal's width with room to spare. */
    public static final int WIDTH = 120;
    private static final String ROW_INDENT = "  ";
    private static final String DETAIL_INDENT = "           ";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ProbeReport() { }

    /** The table as a terminal shows it: the header, a block per row with its verdict first, the violations. */
    public static String render(ProbeSettings settings, boolean ledgerOffered, List<ProbeRow> rows) {
        StringBuilder out = new StringBuilder();
        wrap(out, "probe " + settings.method() + " " + settings.url() + "  (" + circumstances(settings, ledgerOffered)
                + ")", "", "  ");
        out.append(ROW_INDENT).append(String.format(Locale.ROOT, "%-7s  %s%n", "verdict", "check: expected, got"));
        for (ProbeRow row : rows) {
            wrap(out, String.format(Locale.ROOT, "%-7s  %s", row.verdict().id(), row.check()), ROW_INDENT,
                    ROW_INDENT + "         ");
            wrap(out, "expected: " + row.expected(), DETAIL_INDENT, DETAIL_INDENT + "  ");
            wrap(out, "got: " + row.got(), DETAIL_INDENT, DETAIL_INDENT + "  ");
        }
        for (ProbeRow row : failed(rows)) {
            wrap(out, violation(row), "", "  ");
        }
        out.append(summary(rows)).append('\n');
        return out.toString();
    }

    /** The whole table as Markdown, a row per line, the verdict first; then the violations and the summary. */
    public static String markdown(ProbeSettings settings, boolean ledgerOffered, List<ProbeRow> rows) {
        StringBuilder out = new StringBuilder();
        out.append("`probe ").append(settings.method()).append(' ').append(settings.url()).append("` (")
                .append(circumstances(settings, ledgerOffered)).append(")\n\n");
        out.append("| verdict | check | expected | got |\n|---|---|---|---|\n");
        for (ProbeRow row : rows) {
            out.append("| ").append(row.verdict().id()).append(" | ").append(cell(row.check())).append(" | ")
                    .append(cell(row.expected())).append(" | ").append(cell(row.got())).append(" |\n");
        }
        List<ProbeRow> failed = failed(rows);
        if (!failed.isEmpty()) {
            out.append('\n');
            for (ProbeRow row : failed) {
                out.append("* ").append(violation(row)).append('\n');
            }
        }
        out.append('\n').append(summary(rows)).append('\n');
        return out.toString();
    }

    /** Every field of every row, with the probe's settings and the count of failed checks. */
    public static String json(ProbeSettings settings, boolean ledgerOffered, List<ProbeRow> rows) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("method", settings.method());
        report.put("url", settings.url().toString());
        report.put("concurrency", settings.concurrency());
        report.put("token", settings.token());
        report.put("ledgerOffered", ledgerOffered);
        List<Map<String, Object>> out = new ArrayList<>();
        for (ProbeRow row : rows) {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("verdict", row.verdict().id());
            fields.put("check", row.check());
            fields.put("expected", row.expected());
            fields.put("got", row.got());
            fields.put("rule", row.rule());
            out.add(fields);
        }
        report.put("rows", out);
        report.put("failed", failed(rows).size());
        try {
            return JSON.writeValueAsString(report) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the probe's report could not be written as JSON", e);
        }
    }

    private static String circumstances(ProbeSettings settings, boolean ledgerOffered) {
        return settings.concurrency() + " concurrent, "
                + (settings.token() == null ? "no token" : "token " + settings.token()) + ", ledger: "
                + (ledgerOffered ? "GET /ledger" : "not offered, charges not counted");
    }

    private static List<ProbeRow> failed(List<ProbeRow> rows) {
        return rows.stream().filter(r -> r.verdict() == ProbeRow.Verdict.FAIL).toList();
    }

    private static String violation(ProbeRow row) {
        return "violated (" + row.check() + "): " + row.rule();
    }

    private static String summary(List<ProbeRow> rows) {
        long failed = failed(rows).size();
        return failed == 0 ? "every check passed" : failed + " check(s) failed";
    }

    /** A Markdown cell: a bar would end it, a line break would end the row. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace('\n', ' ');
    }

    /**
     * Appends {@code text} in lines of at most {@link #WIDTH} columns, broken at spaces: the first line after
     * {@code first}, the others after {@code rest}. A word longer than a line (a long URL) is cut.
     */
    static void wrap(StringBuilder out, String text, String first, String rest) {
        String prefix = first;
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ", -1)) {
            int room = WIDTH - prefix.length();
            if (line.length() > 0 && line.length() + 1 + word.length() > room) {
                out.append(prefix).append(line).append('\n');
                prefix = rest;
                line.setLength(0);
                room = WIDTH - prefix.length();
            }
            while (line.length() == 0 && word.length() > room) {
                out.append(prefix).append(word, 0, room).append('\n');
                word = word.substring(room);
                prefix = rest;
                room = WIDTH - prefix.length();
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        out.append(prefix).append(line).append('\n');
    }
}
