package dev.idemlab.lab.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code lab probe}'s terminal table back into one line per row, {@code verdict | check | expected | got},
 * so that a test can match a row whole although the table wraps it over several lines of at most 120 columns.
 */
final class ProbeTable {

    /** A row's first line: two spaces, the verdict first, then the check. */
    private static final Pattern ROW = Pattern.compile("^  (pass|fail|skip|note) +(.*)$");
    private static final String DETAIL = "           ";

    private ProbeTable() { }

    /** The rows of the table, each joined back into one line: {@code verdict | check | expected | got}. */
    static String rows(String out) {
        List<String> rows = new ArrayList<>();
        String verdict = null;
        StringBuilder[] cells = null;
        int cell = 0;
        for (String line : out.split("\n")) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                add(rows, verdict, cells);
                verdict = row.group(1);
                cells = new StringBuilder[] {new StringBuilder(row.group(2)), new StringBuilder(), new StringBuilder()};
                cell = 0;
            } else if (cells != null && line.startsWith(DETAIL + "expected: ")) {
                cell = 1;
                cells[1].append(line.substring(DETAIL.length() + "expected: ".length()));
            } else if (cells != null && line.startsWith(DETAIL + "got: ")) {
                cell = 2;
                cells[2].append(line.substring(DETAIL.length() + "got: ".length()));
            } else if (cells != null && line.startsWith(DETAIL)) {
                cells[cell].append(' ').append(line.strip());
            } else {
                add(rows, verdict, cells);
                verdict = null;
                cells = null;
            }
        }
        add(rows, verdict, cells);
        return String.join("\n", rows) + "\n";
    }

    /** The pattern of one row read back by {@link #rows}: {@code rest} matches {@code expected | got}. */
    static String row(String verdict, String check, String rest) {
        return "(?m)^" + verdict + " \\| " + check + " \\| " + rest + "$";
    }

    /** The output with wrapped lines joined again, for a sentence the table may have wrapped (a violation). */
    static String flat(String out) {
        return out.replaceAll("\n +", " ");
    }

    private static void add(List<String> rows, String verdict, StringBuilder[] cells) {
        if (cells != null) {
            rows.add(verdict + " | " + cells[0] + " | " + cells[1] + " | " + cells[2]);
        }
    }
}
