package dev.idemlab.lab.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One mutant of {@code mutants/mutants.tsv} and its patch, read without git: the manifest's row, and
 * the patch's hunks per file, each as the block of lines it expects (context and removed lines) and the
 * block it writes. Enough to tell whether a patch still fits the tree, and to apply it to a copy of a
 * file for a test, so that a refactor that orphans a mutant fails the build rather than the next publish.
 */
record MutantPatch(String id, List<String> stores, String args, String bug, Map<String, List<Hunk>> hunksByFile) {

    /** The repository's root, seen from the lab module, where the tests run. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path MANIFEST = ROOT.resolve("mutants/mutants.tsv");

    /** A hunk: the lines it expects in a row, and the lines it puts in their place. */
    record Hunk(String expected, String written) { }

    /** Every mutant the manifest lists, in its order, with its patch read. */
    static List<MutantPatch> all() throws IOException {
        List<MutantPatch> mutants = new ArrayList<>();
        for (String line : Files.readAllLines(MANIFEST, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#") || line.startsWith("id\t")) {
                continue;
            }
            String[] columns = line.split("\t", -1);
            if (columns.length != 4) {
                throw new IllegalStateException("a manifest row has 4 tab-separated columns: " + line);
            }
            Path patch = patchOf(columns[0]);
            Map<String, List<Hunk>> hunks = Files.isRegularFile(patch)
                    ? hunks(Files.readString(patch, StandardCharsets.UTF_8)) : Map.of();
            mutants.add(new MutantPatch(columns[0], List.of(columns[1].split(",")), columns[2], columns[3], hunks));
        }
        return mutants;
    }

    static Path patchOf(String id) {
        return ROOT.resolve("mutants").resolve(id + ".patch");
    }

    /** The hunks of a unified diff ({@code git diff}'s), by the path of the file they change. */
    static Map<String, List<Hunk>> hunks(String diff) {
        Map<String, List<Hunk>> byFile = new TreeMap<>();
        List<Hunk> current = null;
        StringBuilder expected = null;
        StringBuilder written = null;
        for (String line : diff.split("\n", -1)) {
            if (line.startsWith("+++ ")) {
                current = byFile.computeIfAbsent(line.substring(4).replaceFirst("^b/", ""), path -> new ArrayList<>());
            } else if (line.startsWith("@@") || line.startsWith("diff ")) {
                close(current, expected, written);
                expected = line.startsWith("@@") ? new StringBuilder() : null;
                written = line.startsWith("@@") ? new StringBuilder() : null;
            } else if (expected != null && !line.isEmpty() && !line.startsWith("\\")) {
                char kind = line.charAt(0);
                String text = line.substring(1) + "\n";
                if (kind == ' ' || kind == '-') {
                    expected.append(text);
                }
                if (kind == ' ' || kind == '+') {
                    written.append(text);
                }
            }
        }
        close(current, expected, written);
        return byFile;
    }

    private static void close(List<Hunk> hunks, StringBuilder expected, StringBuilder written) {
        if (hunks != null && expected != null && expected.length() > 0) {
            hunks.add(new Hunk(expected.toString(), written.toString()));
        }
    }

    /**
     * {@code text} with every hunk of {@code file} applied; each hunk's expected lines must appear in
     * it exactly once, or the patch does not fit.
     *
     * @throws IllegalStateException naming the hunk that does not fit
     */
    String applyTo(String file, String text) {
        String patched = text;
        for (Hunk hunk : hunksByFile.getOrDefault(file, List.of())) {
            // Whole lines only: the block starts where a line does.
            String lines = "\n" + patched;
            int at = lines.indexOf("\n" + hunk.expected());
            if (at < 0 || lines.indexOf("\n" + hunk.expected(), at + 1) >= 0) {
                throw new IllegalStateException(id + ": a hunk of " + file + " expects lines found "
                        + (at < 0 ? "nowhere" : "more than once") + " in it:\n" + hunk.expected());
            }
            patched = patched.substring(0, at) + hunk.written() + patched.substring(at + hunk.expected().length());
        }
        return patched;
    }
}
