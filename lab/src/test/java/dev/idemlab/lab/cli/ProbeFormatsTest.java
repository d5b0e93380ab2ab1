package dev.idemlab.lab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.http.DemoProvider;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.probe.ProbeReport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, item 5: {@code lab probe}'s table was about 280 columns wide, its verdict last and off a
 * terminal's screen. Against a real demo server behind the result cache (so that a row fails and its long
 * rule is printed), the table puts each row's verdict first and keeps every line within 120 columns, while
 * {@code --format markdown} and {@code --format json} give every row whole.
 */
class ProbeFormatsTest {

    private static final Pattern MARKDOWN_ROW = Pattern.compile("(?m)^\\| (pass|fail|skip|note) \\| (.*) \\|$");
    private static DemoServer server;

    @BeforeAll
    static void aResultCacheBehindTheFilter() throws Exception {
        DemoProvider provider = DemoProvider.inProcess(Duration.ofMillis(500));
        server = DemoServer.start(new InMemoryIdempotencyStore(), LabPolicy.RUN, IdempotencyConfig.ofDefaults(),
                provider.provider(), provider.failNext(), 0, true);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static LabRun probe(String... options) {
        List<String> args = new ArrayList<>(List.of("probe", "--url", server.uri() + "/orders/o-1/charge"));
        args.addAll(List.of(options));
        return LabRun.of(args.toArray(String[]::new));
    }

    @Test
    void theTableFitsATerminalWithEachRowsVerdictFirst() {
        LabRun run = probe();
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
        List<String> lines = run.out().lines().toList();
        assertThat(lines).as(run.out()).allSatisfy(line -> assertThat(line.length()).as(line)
                .isLessThanOrEqualTo(ProbeReport.WIDTH));
        assertThat(lines.get(1)).startsWith("  verdict  check");
        String rows = ProbeTable.rows(run.out());
        assertThat(rows.lines()).hasSizeGreaterThan(10)
                .allSatisfy(row -> assertThat(row).matches("(pass|fail|skip|note) \\| \\S.* \\| .* \\| .*"));
        // The row that once ran past 280 columns: its verdict is on its first line, before the check.
        assertThat(run.out()).containsPattern("(?m)^  fail     concurrent identical x8$");
        assertThat(ProbeTable.flat(run.out())).contains("violated (concurrent identical x8): exactly once under "
                + "concurrency: a request whose key is in flight must not run again");
        assertThat(lines.get(lines.size() - 1)).matches("\\d+ check\\(s\\) failed");
    }

    @Test
    void markdownGivesEveryRowWholeOnALineTheVerdictFirst() {
        LabRun table = probe();
        LabRun markdown = probe("--format", "markdown");
        assertThat(markdown.exitCode()).as(markdown.out() + markdown.err()).isEqualTo(1);
        assertThat(markdown.out()).contains("| verdict | check | expected | got |")
                .contains("violated (concurrent identical x8): exactly once under concurrency");
        List<String> rows = new ArrayList<>();
        Matcher row = MARKDOWN_ROW.matcher(markdown.out());
        while (row.find()) {
            rows.add(row.group(1) + " | " + row.group(2));
        }
        assertThat(rows).as(markdown.out()).hasSize((int) ProbeTable.rows(table.out()).lines().count());
        assertThat(rows).anySatisfy(line -> assertThat(line).matches("fail \\| concurrent identical x8 \\| .*"
                + "ledger: [2-8] charges"));
        assertThat(rows.stream().mapToInt(String::length).max().orElseThrow()).as("a row kept whole")
                .isGreaterThan(ProbeReport.WIDTH);
    }

    @Test
    void jsonGivesEveryFieldOfEveryRow(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("probe.json");
        LabRun run = probe("--format", "json", "--out", file.toString());
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
        assertThat(run.out()).contains("wrote json report to " + file);
        JsonNode report = new ObjectMapper().readTree(Files.readString(file));
        assertThat(report.path("url").asText()).isEqualTo(server.uri() + "/orders/o-1/charge");
        assertThat(report.path("ledgerOffered").asBoolean()).isTrue();
        assertThat(report.path("rows").size()).isGreaterThan(10);
        JsonNode concurrent = null;
        for (JsonNode row : report.path("rows")) {
            assertThat(row.fieldNames()).toIterable().containsExactly("verdict", "check", "expected", "got", "rule");
            if (row.path("check").asText().equals("concurrent identical x8")) {
                concurrent = row;
            }
        }
        assertThat(concurrent).isNotNull();
        assertThat(concurrent.path("verdict").asText()).isEqualTo("fail");
        assertThat(concurrent.path("got").asText()).containsPattern("ledger: [2-8] charges");
        assertThat(concurrent.path("rule").asText()).startsWith("exactly once under concurrency");
        assertThat(report.path("failed").asInt()).isPositive();
    }
}
