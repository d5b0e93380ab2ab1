package dev.idemlab.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed results and the one header every page carries (scripts/lib/page.sh). */
class ResultsPagesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path RESULTS = ROOT.resolve("results");

    @Test
    void everyCommittedPageCarriesTheWholeHeaderAndTheyAllNameOneCommit() throws Exception {
        assertThat(ResultsPages.problems(RESULTS)).isEmpty();
        assertThat(ResultsPages.commits(RESULTS)).isNotEmpty();
        // A shallow checkout (a CI's default) holds no history to find the commit in.
        if (git("rev-parse", "--is-inside-work-tree") == 0 && git("rev-parse", "--is-shallow-repository") == 0
                && !gitOut("rev-parse", "--is-shallow-repository").equals("true")) {
            for (String commit : ResultsPages.commits(RESULTS)) {
                assertThat(git("cat-file", "-e", commit + "^{commit}")).as("commit %s is in this history", commit)
                        .isZero();
                assertThat(git("merge-base", "--is-ancestor", commit, "HEAD")).as("commit %s is behind HEAD", commit)
                        .isZero();
            }
        }
    }

    @Test
    void theHelperWritesTheHeaderTheCheckReadsAndAStampReplacesTheLastOne(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("page.md");
        Files.writeString(page, "# A page\n\nbody\n");
        assertThat(stamp(dir, page, "bash scripts/x.sh", "redis", "postgres-durable")).isZero();
        assertThat(stamp(dir, page, "bash scripts/y.sh", "memory")).isZero();

        String text = Files.readString(page);
        assertThat(text).startsWith("# A page\n\n" + ResultsPages.HEADER_START).endsWith("\nbody\n");
        assertThat(text.split(ResultsPages.HEADER_START, -1)).hasSize(2);
        Map<String, String> header = ResultsPages.header(text).orElseThrow();
        assertThat(header).containsOnlyKeys(ResultsPages.FIELDS).containsEntry("command", "`bash scripts/y.sh`");
        assertThat(header.get("servers")).startsWith("memory").doesNotContain("postgres");
        assertThat(header.get("cores")).matches("\\d+ .*");
        // Outside a git checkout the helper cannot name a commit, and the check says so.
        assertThat(header.get("commit")).isEqualTo("`unknown`");
        assertThat(ResultsPages.problems(dir)).anySatisfy(p -> assertThat(p).contains("not a plain commit id"));
    }

    @Test
    void aPageWithoutTitleGetsOneAndAnUnknownServerIsRefused(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("body.md");
        Files.writeString(page, "## a section\n");
        assertThat(stamp(dir, page, "bash scripts/x.sh", "redis-cluster")).isZero();
        assertThat(Files.readString(page)).startsWith("# Title\n\n" + ResultsPages.HEADER_START)
                .endsWith("\n## a section\n");
        String before = Files.readString(page);
        assertThat(stamp(dir, page, "bash scripts/x.sh", "mongodb")).isEqualTo(2);
        assertThat(Files.readString(page)).isEqualTo(before);

        Files.writeString(page, "# T\n\n" + ResultsPages.HEADER_START + "\nno end\n");
        assertThat(stamp(dir, page, "bash scripts/x.sh", "redis")).isEqualTo(2);
        assertThat(Files.readString(page)).endsWith("no end\n");
    }

    @Test
    void theCheckFailsOnAMissingFieldTwoCommitsAnUncommittedTreeAndAnIndexThatDisagrees(@TempDir Path dir)
            throws IOException {
        write(dir.resolve("README.md"), "# Results\n\nAll pages published from commit `aaaaaaa`.\n");
        write(dir.resolve("a/README.md"), page("aaaaaaa", true));
        assertThat(ResultsPages.problems(dir)).isEmpty();
        assertThat(ResultsPages.commit(dir)).contains("aaaaaaa");

        write(dir.resolve("a/other.md"), page("bbbbbbb", true));
        assertThat(ResultsPages.problems(dir)).singleElement().asString()
                .contains("2 commits", "aaaaaaa", "bbbbbbb");

        write(dir.resolve("a/other.md"), page("aaaaaaa", false));
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("a/other.md", "'servers'");

        write(dir.resolve("a/other.md"), page("aaaaaaa (with uncommitted changes)", true));
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("not a plain commit id");

        write(dir.resolve("a/other.md"), "# no header\n");
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("a/other.md", "no page header");

        write(dir.resolve("a/other.md"), page("aaaaaaa", true) + "\n" + page("aaaaaaa", true));
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("more than one page header");

        write(dir.resolve("a/other.md"), page("aaaaaaa", true).replace(ResultsPages.HEADER_END, ""));
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("no page header");

        Files.delete(dir.resolve("a/other.md"));
        write(dir.resolve("README.md"), "# Results\n\nAll pages published from commit `ccccccc`.\n");
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("ccccccc", "aaaaaaa");

        // A quick run's pages are not committed and not checked.
        write(dir.resolve("README.md"), "# Results\n\nAll pages published from commit `aaaaaaa`.\n");
        write(dir.resolve("bench/quick/README.md"), "# quick\n");
        assertThat(ResultsPages.problems(dir)).isEmpty();

        Files.delete(dir.resolve("README.md"));
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("no index");
    }

    @Test
    void aPartialRepublishLetsItsOwnCommitStandAndNoOther(@TempDir Path dir) throws IOException {
        String index = "# Results\n\nAll pages published from commit `aaaaaaa`.\n";
        write(dir.resolve("README.md"), index + "* Republished from commit `bbbbbbb` on 2026-12-03 by "
                + "`bash scripts/publish.sh --only mutants`: nemesis/mutants.md\n");
        write(dir.resolve("a/README.md"), page("aaaaaaa", true));
        write(dir.resolve("nemesis/mutants.md"), page("bbbbbbb", true));
        assertThat(ResultsPages.problems(dir)).isEmpty();
        assertThat(ResultsPages.commits(dir)).containsExactly("aaaaaaa", "bbbbbbb");

        write(dir.resolve("nemesis/other.md"), page("ccccccc", true));
        assertThat(ResultsPages.problems(dir)).singleElement().asString()
                .contains("nemesis/other.md", "ccccccc", "neither published nor republished");

        Files.delete(dir.resolve("nemesis/other.md"));
        Files.delete(dir.resolve("nemesis/mutants.md"));
        assertThat(ResultsPages.problems(dir)).singleElement().asString().contains("republished from commit bbbbbbb");
    }

    /**
     * Issue 40: {@code load/durable/} had no README, and {@code load/load.md} and {@code load/durable/table.txt}
     * were named nowhere in the index; the index did not say what changed on main since the publish.
     */
    @Test
    void theCommittedResultsAreWholeAndTheIndexSaysWhatChangedSinceThePublish() throws Exception {
        assertThat(ResultsIndex.problems(RESULTS)).isEmpty();
        String index = Files.readString(RESULTS.resolve("README.md"));
        java.util.regex.Matcher since = java.util.regex.Pattern.compile(
                "## What changed on main since the publish\n(?s:.*?)up to `([0-9a-f]{7,40})`").matcher(index);
        assertThat(since.find()).as("the index's section on what changed since the publish, up to a commit").isTrue();
        if (git("rev-parse", "--is-inside-work-tree") == 0
                && !gitOut("rev-parse", "--is-shallow-repository").equals("true")) {
            assertThat(git("merge-base", "--is-ancestor", since.group(1), "HEAD"))
                    .as("commit %s is behind HEAD", since.group(1)).isZero();
        }
    }

    @Test
    void aFolderWithoutReadmeAndAFileTheIndexDoesNotNameAreEachReported(@TempDir Path dir) throws IOException {
        write(dir.resolve("README.md"), "# Results\n\n| folder | written by | what it holds |\n|---|---|---|\n"
                + "| `load/` | x | `README.md`, `load-*.csv` |\n| `load/knees.md` | y | knees |\n"
                + "\n## failures/\n\nas `NAME-STORE.txt`\n");
        write(dir.resolve("load/README.md"), "# load\n");
        write(dir.resolve("load/load-1.csv"), "");
        write(dir.resolve("load/knees.md"), "");
        write(dir.resolve("failures/README.md"), "# failures\n");
        write(dir.resolve("failures/scope-redis.txt"), "");
        write(dir.resolve("bench/README.md"), "# bench\n");
        write(dir.resolve("bench/quick/chart.png"), "");
        assertThat(ResultsIndex.problems(dir)).isEmpty();

        write(dir.resolve("load/load.md"), "");
        write(dir.resolve("load/durable/table.txt"), "");
        write(dir.resolve("failures/scope-redis.json"), "");
        String unnamed = ": not named in README.md (the index names each file by its path, or by its name in its "
                + "folder's row or section)";
        assertThat(ResultsIndex.problems(dir)).containsExactly("failures/scope-redis.json" + unnamed,
                "load/durable/: no README.md saying what its files are", "load/durable/table.txt" + unnamed,
                "load/load.md" + unnamed);
    }

    private static String page(String commit, boolean servers) {
        return "# T\n\n" + ResultsPages.HEADER_START + "\n* command: `bash scripts/x.sh`\n* commit: `" + commit
                + "`\n* date: 2026-12-02 (UTC)\n* JDK: 17\n* cores: 2 (Linux x86_64)\n"
                + (servers ? "* servers: memory: in the JVM\n" : "") + ResultsPages.HEADER_END + "\n\nbody\n";
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static int stamp(Path dir, Path page, String command, String... servers) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("bash", ROOT.resolve("scripts/lib/page.sh").toString(),
                "stamp", page.toString(), "Title", command));
        args.addAll(List.of(servers));
        return run(dir, args);
    }

    private static int git(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", ROOT.toString()));
        command.addAll(List.of(args));
        return run(ROOT, command);
    }

    private static String gitOut(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", ROOT.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private static int run(Path dir, List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        return process.exitValue();
    }
}
