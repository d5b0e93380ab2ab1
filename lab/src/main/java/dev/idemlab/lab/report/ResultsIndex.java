package dev.idemlab.lab.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Says where {@code results/} is not whole: a folder with no {@code README.md} saying what its files are,
 * or a file the index ({@code results/README.md}) does not name, so that a reader who finds a file (a
 * {@code table.txt}, a {@code load.md}) can find what wrote it. The index names a file by its path
 * ({@code `load/knees.md`}) anywhere, or by its name or a pattern of it ({@code `jmh-*.json`},
 * {@code `NAME-STORE.txt`}, where {@code STORE} and {@code NAME} stand for a word of the file's name) in a
 * table row whose first cell names its folder ({@code `load/durable/`}) or in a section headed by it
 * ({@code ## failures/}). Quick runs ({@code quick/}) are not committed and not checked. Stateless.
 */
public final class ResultsIndex {

    private static final Pattern TOKEN = Pattern.compile("`([^`]+)`");
    private static final Pattern FOLDER_TOKEN = Pattern.compile("`([^`]+/)`");
    private static final Pattern SECTION = Pattern.compile("#+ (\\S+/)\\s*");
    private static final Map<String, String> PLACEHOLDERS = Map.of("STORE", "[a-z0-9-]+", "NAME", "[a-z0-9-]+");
    private static final Pattern WILD = Pattern.compile("\\*|STORE|NAME");

    private ResultsIndex() { }

    /** One line per folder without a README and per file the index does not name; empty when whole. */
    public static List<String> problems(Path results) {
        Path indexFile = results.resolve("README.md");
        if (!Files.isRegularFile(indexFile)) {
            return List.of("README.md: there is no index of the results");
        }
        String index = read(indexFile);
        List<Block> blocks = blocks(index);
        List<String> tokens = tokens(index);
        List<String> problems = new ArrayList<>();
        for (Path path : walk(results)) {
            String name = results.relativize(path).toString().replace('\\', '/');
            if (Files.isDirectory(path)) {
                if (!Files.isRegularFile(path.resolve("README.md"))) {
                    problems.add(name + "/: no README.md saying what its files are");
                }
            } else if (!path.getFileName().toString().equals("README.md") && !named(name, tokens, blocks)) {
                problems.add(name + ": not named in README.md (the index names each file by its path, or by its "
                        + "name in its folder's row or section)");
            }
        }
        return problems;
    }

    /** A table row or a section of the index, with the folders it is about. */
    private record Block(List<String> folders, List<String> tokens) { }

    private static boolean named(String name, List<String> everywhere, List<Block> blocks) {
        if (everywhere.contains(name)) {
            return true;
        }
        int slash = name.lastIndexOf('/');
        String folder = slash < 0 ? "" : name.substring(0, slash + 1);
        String file = name.substring(slash + 1);
        for (Block block : blocks) {
            if (block.folders().contains(folder)
                    && block.tokens().stream().anyMatch(token -> pattern(token).matcher(file).matches())) {
                return true;
            }
        }
        return false;
    }

    /** A token as a pattern of file names: {@code *}, {@code STORE} and {@code NAME} stand for any word. */
    static Pattern pattern(String token) {
        StringBuilder regex = new StringBuilder();
        Matcher wild = WILD.matcher(token);
        int at = 0;
        while (wild.find()) {
            regex.append(Pattern.quote(token.substring(at, wild.start())))
                    .append(wild.group().equals("*") ? ".*" : PLACEHOLDERS.get(wild.group()));
            at = wild.end();
        }
        return Pattern.compile(regex.append(Pattern.quote(token.substring(at))).toString());
    }

    private static List<Block> blocks(String index) {
        List<Block> blocks = new ArrayList<>();
        List<String> sectionFolders = null;
        StringBuilder section = new StringBuilder();
        for (String line : index.split("\n")) {
            if (line.startsWith("#")) {
                addSection(blocks, sectionFolders, section);
                Matcher heading = SECTION.matcher(line.replaceFirst("^#+ ", "# "));
                sectionFolders = heading.matches() ? List.of(heading.group(1)) : null;
                section.setLength(0);
            } else if (line.startsWith("|")) {
                String firstCell = line.split(" \\| ", 2)[0];
                blocks.add(new Block(all(FOLDER_TOKEN, firstCell), tokens(line)));
            } else {
                section.append(line).append('\n');
            }
        }
        addSection(blocks, sectionFolders, section);
        return blocks;
    }

    private static void addSection(List<Block> blocks, List<String> folders, CharSequence text) {
        if (folders != null) {
            blocks.add(new Block(folders, tokens(text.toString())));
        }
    }

    private static List<String> tokens(String text) {
        return all(TOKEN, text);
    }

    private static List<String> all(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** Every folder and file under {@code results} but the index itself, quick runs left out, sorted. */
    private static List<Path> walk(Path results) {
        try (Stream<Path> paths = Files.walk(results)) {
            return paths.filter(p -> !p.equals(results) && !p.equals(results.resolve("README.md")))
                    .filter(p -> !results.relativize(p).toString().replace('\\', '/').matches("(.*/)?quick(/.*)?"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
