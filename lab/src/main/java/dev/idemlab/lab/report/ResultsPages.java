package dev.idemlab.lab.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads back the header every page under {@code results/} carries (written by
 * {@code scripts/lib/page.sh}) and says what is wrong with the set: a page without the header or with a
 * field missing, a commit that is not a plain commit id, a page from a commit the index
 * ({@code results/README.md}) does not name. A whole publish names one commit in the index's publish
 * line; a later partial one ({@code scripts/publish.sh --only STEP}) adds a line "republished from
 * commit X ... by STEP", so that a reader sees which pages came from which code, and the check lets
 * pages of that commit stand, and no other. Its command line adds {@link ResultsIndex}'s check that every
 * folder has a README and every file is named in the index. Run by
 * {@code scripts/publish.sh} after a publish and by a test against the committed pages:
 * <pre>{@code
 * java -cp lab/target/lab.jar dev.idemlab.lab.report.ResultsPages results
 * }</pre>
 */
public final class ResultsPages {

    /** The fields of the header, in the order page.sh writes them. */
    public static final List<String> FIELDS = List.of("command", "commit", "date", "JDK", "cores", "servers");

    static final String HEADER_START = "<!-- page header: scripts/lib/page.sh -->";
    static final String HEADER_END = "<!-- end of page header -->";
    private static final Pattern FIELD = Pattern.compile("^\\* ([A-Za-z]+): (.*)$");
    private static final Pattern COMMIT = Pattern.compile("^`([0-9a-f]{7,40})`$");
    /** The index's line that says which commit the pages come from. */
    private static final Pattern PUBLISHED = Pattern.compile("(?<![Rr]e)published from commit `([0-9a-f]{7,40})`");
    /** An index line that says a later partial publish rewrote some pages from another commit. */
    private static final Pattern REPUBLISHED = Pattern.compile("[Rr]epublished from commit `([0-9a-f]{7,40})`");

    private ResultsPages() { }

    /** A page's header fields by name, or empty when it carries no header, or one without its end. */
    public static Optional<Map<String, String>> header(String page) {
        List<String> lines = page.lines().toList();
        int start = lines.indexOf(HEADER_START);
        if (start < 0 || !lines.subList(start, lines.size()).contains(HEADER_END)) {
            return Optional.empty();
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).equals(HEADER_END); i++) {
            Matcher field = FIELD.matcher(lines.get(i));
            if (field.matches()) {
                fields.put(field.group(1), field.group(2).strip());
            }
        }
        return Optional.of(fields);
    }

    /**
     * Every problem with the pages under {@code results}, one line each naming the page and the rule it
     * broke; empty when every page carries the whole header and all of them, and the index, name one
     * commit.
     */
    public static List<String> problems(Path results) {
        List<String> problems = new ArrayList<>();
        Map<String, List<String>> pagesByCommit = new TreeMap<>();
        if (pages(results).isEmpty()) {
            problems.add("no pages under " + results);
        }
        for (Path page : pages(results)) {
            String name = results.relativize(page).toString();
            String text = read(page);
            Optional<Map<String, String>> header = header(text);
            if (header.isEmpty()) {
                problems.add(name + ": carries no page header (every page is stamped by scripts/lib/page.sh)");
                continue;
            }
            if (text.lines().filter(HEADER_START::equals).count() > 1) {
                problems.add(name + ": carries more than one page header");
            }
            for (String field : FIELDS) {
                String value = header.get().get(field);
                if (value == null || value.isBlank()) {
                    problems.add(name + ": its header lacks the field '" + field + "'");
                }
            }
            String commit = header.get().get("commit");
            if (commit == null) {
                continue;
            }
            Matcher plain = COMMIT.matcher(commit);
            if (!plain.matches()) {
                problems.add(name + ": its commit " + commit + " is not a plain commit id (a page from "
                        + "uncommitted changes names no code anyone can check out)");
                continue;
            }
            pagesByCommit.computeIfAbsent(plain.group(1), c -> new ArrayList<>()).add(name);
        }
        Path index = results.resolve("README.md");
        if (!Files.isRegularFile(index)) {
            problems.add("README.md: there is no index of the results");
            return problems;
        }
        String indexText = read(index);
        Matcher published = PUBLISHED.matcher(indexText);
        List<String> republished = republished(indexText);
        if (!published.find()) {
            problems.add("README.md: the index does not say which commit the pages were published from");
        } else if (republished.isEmpty()) {
            oneCommit(pagesByCommit, published.group(1), problems);
        } else {
            pagesByCommit.forEach((commit, names) -> {
                if (!commit.equals(published.group(1)) && !republished.contains(commit)) {
                    problems.add(names.get(0) + (names.size() == 1 ? "" : " and " + (names.size() - 1) + " more")
                            + ": from commit " + commit + ", which the index neither published nor republished");
                }
            });
            republished.stream().filter(commit -> !pagesByCommit.containsKey(commit)).forEach(commit -> problems.add(
                    "README.md: the index says pages were republished from commit " + commit + ", and none is"));
        }
        return problems;
    }

    /** A whole publish: every page names the commit of the index's publish line. */
    private static void oneCommit(Map<String, List<String>> pagesByCommit, String published, List<String> problems) {
        if (pagesByCommit.size() > 1) {
            StringBuilder line = new StringBuilder("the pages name " + pagesByCommit.size()
                    + " commits where a publish names one:");
            pagesByCommit.forEach((commit, names) -> line.append(' ').append(commit).append(" (")
                    .append(names.size()).append(names.size() == 1 ? " page: " : " pages, e.g. ")
                    .append(names.get(0)).append(')'));
            problems.add(line.toString());
        } else if (pagesByCommit.size() == 1 && !pagesByCommit.containsKey(published)) {
            problems.add("README.md: the index says commit " + published + ", the pages "
                    + pagesByCommit.keySet().iterator().next());
        }
    }

    /** The commits the index's "republished from commit" lines name, in order. */
    private static List<String> republished(String index) {
        List<String> commits = new ArrayList<>();
        Matcher line = REPUBLISHED.matcher(index);
        while (line.find()) {
            commits.add(line.group(1));
        }
        return commits;
    }

    /** Every commit a page names, in the order the pages sort. */
    public static List<String> commits(Path results) {
        List<String> commits = new ArrayList<>();
        for (Path page : pages(results)) {
            header(read(page)).map(h -> h.get("commit")).map(COMMIT::matcher).filter(Matcher::matches)
                    .map(m -> m.group(1)).filter(c -> !commits.contains(c)).ifPresent(commits::add);
        }
        return commits;
    }

    /** The commit every page names, when they name one. */
    public static Optional<String> commit(Path results) {
        List<String> commits = commits(results);
        return commits.size() == 1 ? Optional.of(commits.get(0)) : Optional.empty();
    }

    /** Every page under {@code results} but the index, leaving out quick runs (they are not committed). */
    static List<Path> pages(Path results) {
        try (Stream<Path> files = Files.walk(results)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().endsWith(".md"))
                    .filter(p -> !p.equals(results.resolve("README.md")))
                    .filter(p -> !results.relativize(p).toString().matches("(.*/)?quick/.*"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path page) {
        try {
            return Files.readString(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) {
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println("usage: java -cp lab/target/lab.jar dev.idemlab.lab.report.ResultsPages RESULTS_DIR");
            System.exit(2);
        }
        Path results = Path.of(args[0]);
        if (!Files.isDirectory(results)) {
            System.err.println("no results folder at " + results);
            System.exit(2);
        }
        List<String> problems = new ArrayList<>(problems(results));
        ResultsIndex.problems(results).stream().filter(p -> !problems.contains(p)).forEach(problems::add);
        problems.forEach(System.out::println);
        System.out.println(problems.isEmpty()
                ? pages(results).size() + " pages, one header each, from commit" + (commits(results).size() == 1 ? " " : "s ")
                        + String.join(", ", commits(results))
                : problems.size() + " problem(s) in " + pages(results).size() + " pages");
        System.exit(problems.isEmpty() ? 0 : 1);
    }
}
