package dev.idemlab.lab.cli;

import picocli.CommandLine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line in this JVM. The race is widened (an 800 ms provider, retries at 200 ms) so that
 * on a noisy machine the retry is surely inside the first call and the first call surely stores its
 * result first; nothing here asserts a duration.
 */
class LabCommandTest {

    private static final String[] WIDE_RACE = {"--latency-ms", "800", "--retry-at-ms", "200"};

    private static String[] args(String... head) {
        String[] all = new String[head.length + WIDE_RACE.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(WIDE_RACE, 0, all, head.length, WIDE_RACE.length);
        return all;
    }

    @Test
    void theRunPolicyShowsTheDoubleCharge() {
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "run", "--store", "memory"));
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("policy=run (a result cache)")
                .contains("responses=[ch_1, ch_1]").contains("charges made=[ch_1, ch_2]")
                .contains("store: memory");
    }

    @Test
    void tenCallersUnderWaitShareOneCharge() throws Exception {
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "wait", "--callers", "10",
                "--store", "memory", "--format", "json"));
        assertThat(run.exitCode()).isZero();
        JsonNode runs = new ObjectMapper().readTree(run.out());
        assertThat(runs.isArray()).isTrue();
        JsonNode wait = runs.get(0);
        assertThat(wait.get("charges")).hasSize(1);
        assertThat(wait.get("charges").get(0).asText()).isEqualTo("ch_1");
        assertThat(wait.get("responses")).hasSize(10).allSatisfy(r -> assertThat(r.asText()).isEqualTo("ch_1"));
        assertThat(wait.get("callers")).hasSize(10);
    }

    @Test
    void jsonCarriesEveryFieldTheIssueNames() throws Exception {
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "raise", "--store", "memory", "--format", "json"));
        JsonNode raise = new ObjectMapper().readTree(run.out()).get(0);
        assertThat(raise.get("scenario").asText()).isEqualTo("in-flight");
        assertThat(raise.get("policy").asText()).isEqualTo("raise");
        assertThat(raise.get("store").get("name").asText()).isEqualTo("memory");
        assertThat(raise.get("store").get("version").asText()).isNotBlank();
        assertThat(raise.get("store").get("origin").asText()).isEqualTo("in-process");
        assertThat(raise.get("responses").get(1).asText()).isEqualTo("IdempotencyInProgressException");
        assertThat(raise.get("storageErrors").asLong()).isZero();
        JsonNode caller = raise.get("callers").get(0);
        assertThat(caller.get("endMs").asLong()).isGreaterThanOrEqualTo(caller.get("startMs").asLong());
        assertThat(caller.get("response").asText()).isEqualTo("ch_1");
    }

    @Test
    void retriesArriveAtTheRetryTimeAfterTheFirstCallerNotAfterTheWarmUp() throws Exception {
        // Regression: the scenario clock once started before the warm-up, so both callers arrived together.
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "wait", "--store", "memory", "--format", "json"));
        JsonNode callers = new ObjectMapper().readTree(run.out()).get(0).get("callers");
        long a = callers.get(0).get("startMs").asLong();
        long b = callers.get(1).get("startMs").asLong();
        assertThat(b).as("B sleeps until the retry time on the race's clock").isGreaterThanOrEqualTo(200 - 1);
        assertThat(a).as("A is already in flight when B arrives").isLessThan(b);
    }

    @Test
    void markdownHasTheTableAndASequenceDiagram() {
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "wait", "--store", "memory", "--format", "markdown"));
        assertThat(run.out()).contains("## in-flight").contains("| policy | responses | charges made |")
                .contains("```mermaid\nsequenceDiagram").contains("participant P0 as A");
    }

    /** Issue 29: the result cache's put said "lease 5000 ms" in its diagram under a header of 30000 ms. */
    @Test
    void theRunPolicysDiagramShowsTheLeaseItsHeaderNames() {
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "run", "--store", "memory", "--format", "markdown"));
        assertThat(run.out()).contains("lease 30000 ms, key order-42-charge")
                .contains("reserve payment.charge:order-42-charge, lease 30000 ms (for A)")
                .doesNotContainPattern("lease (?!30000)\\d+ ms");
    }

    @Test
    void keyReuseAndProviderTimeoutPrintThePostsOutcomes() {
        LabRun reuse = LabRun.of("scenario", "key-reuse", "--store", "memory", "--latency-ms", "1");
        assertThat(reuse.out()).contains("replayed ch_1").contains("IdempotencyKeyReuseException")
                .doesNotContain("charges made=2");
        LabRun everyPolicy = LabRun.of("scenario", "key-reuse", "--policy", "all", "--store", "memory", "--latency-ms", "1");
        assertThat(everyPolicy.out()).contains("policy=run:").contains("policy=wait:").contains("policy=raise:");
        LabRun timeout = LabRun.of("scenario", "provider-timeout", "--store", "memory", "--latency-ms", "1");
        assertThat(timeout.out()).containsPattern("first call\\s+-> ProviderTimeoutException\\s+charges made=0")
                .containsPattern("retry\\s+-> ch_1\\s+charges made=1");
    }

    @Test
    void outWritesTheReportWholeAndSaysWhere(@TempDir Path dir) throws Exception {
        Path file = Files.createDirectories(dir.resolve("reports")).resolve("in-flight.json");
        LabRun run = LabRun.of(args("scenario", "in-flight", "--policy", "wait", "--store", "memory",
                "--format", "json", "--out", file.toString()));
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("wrote json report to " + file);
        assertThat(new ObjectMapper().readTree(Files.readString(file)).get(0).get("policy").asText()).isEqualTo("wait");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "scenario in-flight --latency-ms 0|--latency-ms must be between 1 and 60000, got 0",
            "scenario in-flight --latency-ms 2147483647|--latency-ms must be between 1 and 60000, got 2147483647",
            "scenario in-flight --retry-at-ms 99999999999|--retry-at-ms must be between 0 and 60000, got 99999999999",
            "scenario in-flight --retry-at-ms -1|--retry-at-ms must be between 0 and 60000, got -1",
            "scenario in-flight --callers 1|--callers must be between 2 and 1000",
            "scenario in-flight --callers 99999999999|--callers must be between 2 and 1000, got 99999999999",
            "scenario key-reuse --store memory --out /proc/version|--out /proc/version: cannot be written: the directory /proc takes no new file",
            "scenario in-flight --policy maybe|Invalid value for option '--policy'",
            "scenario in-flight --lease-s 0|--lease-s must be between 1 and 86399",
            "scenario in-flight --lease-s 90000|shorter than the record ttl of 24 h), got 90000",
            "scenario in-flight --store floppy|--store must be one of",
            "scenario bogus|Unmatched argument",
            "scenario|missing scenario",
            "scenario store-down --store memory|store-down needs a store with a server",
            "scenario key-reuse --callers 3|--callers is an option of 'lab scenario in-flight' and 'lab scenario all', not of 'lab scenario key-reuse'",
            "scenario key-reuse --store memory --pg-from system|Invalid value for option '--pg-from': expected one of url, bundled, container, got 'system'",
            "scenario key-reuse --store memory --pg-from in_process|Invalid value for option '--pg-from': expected one of url, bundled, container, got 'in_process'",
            "scenario key-reuse --store memory --redis-from in_process|Invalid value for option '--redis-from': expected one of url, system, bundled, container, cluster, got 'in_process'",
            "scenario key-reuse --store memory --pg-url garbage|--pg-url garbage: it must start with jdbc:postgresql:// and name a host (expected jdbc:postgresql://host[:port]/database",
            "scenario key-reuse --redis-url redis://127.0.0.1:99999|--redis-url redis://127.0.0.1:99999: the port must be between 1 and 65535 (expected redis://",
            "scenario key-reuse --store postgres --pg-url jdbc:postgresql://127.0.0.1:99999/db|--pg-url jdbc:postgresql://127.0.0.1:99999/db: the port must be between 1 and 65535",
            "scenario key-reuse --store postgres --pg-url jdbc:postgresql://127.0.0.1:0/db?user=u&password=secret|--pg-url jdbc:postgresql://127.0.0.1:0/db?user=u&password=***: the port must be between 1 and 65535",
            "scenario key-reuse --store postgres --pg-url jdbc:postgresql://u:secret@127.0.0.1/db|--pg-url jdbc:postgresql://***@127.0.0.1/db: the host part is not host[:port][,host[:port]...]",
            "peers --load-keys 0|--load-keys sizes the load run, which only --load starts",
            "check --stores memory,floppy|--stores must name stores among",
            "check --store memory|check runs on several stores and takes --stores STORE[,STORE...], not --store"
    })
    void usageErrorsExitTwoWithTheRuleAndNoStackTrace(String commandLine, String rule) {
        LabRun run = LabRun.of(commandLine.split(" "));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ").doesNotContain("Exception in")
                .doesNotContain("secret");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aRunOnAUsersRedisRemovesItsKeysAndSaysSo() {
        try (dev.idemlab.lab.infra.RedisBackend users = dev.idemlab.lab.infra.RedisBackend.open(
                new dev.idemlab.lab.infra.ProvisioningOptions(null, dev.idemlab.lab.infra.Origin.BUNDLED, null, null))) {
            LabRun run = LabRun.of("scenario", "key-reuse", "--redis-url", users.uri(), "--latency-ms", "1");
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.err()).containsPattern("lab: removed the [1-9]\\d* keys this run wrote \\(idemlab:[0-9a-f]+:\\*\\) "
                    + "from the Redis at " + users.server().address().replace(".", "\\."));
        }
    }

    @Test
    void storeNamesAreCaseInsensitiveLikeTheOtherChoices() {
        LabRun run = LabRun.of("scenario", "key-reuse", "--store", "MEMORY", "--policy", "WAIT", "--latency-ms", "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("store: memory");
    }

    @Test
    void checkHelpListsWhatCheckTakesAndNothingElse() {
        String help = LabRun.of("check", "--help").out();
        assertThat(help).contains("--stores=STORE[,STORE...]").contains("--allow-skip")
                .doesNotContain("--store=").doesNotContain("STORE[,STORE...][,").doesNotContain("Default: redis");
    }

    @Test
    void checkRefusesAScenarioItDoesNotRunAndOneThatRunsOnNoStoreAskedFor() {
        LabRun unknown = LabRun.of("check", "--stores", "memory", "--scenarios", "in-flight,double-spend");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("--scenarios takes names of the gate's scenarios").contains("got 'double-spend'")
                .doesNotContain("Exception");
        LabRun nowhere = LabRun.of("check", "--stores", "memory", "--scenarios", "failover");
        assertThat(nowhere.exitCode()).isEqualTo(2);
        assertThat(nowhere.err()).contains("runs on none of the stores asked for (memory)");
        assertThat(nowhere.out()).doesNotContain("check:");
    }

    @Test
    void checkOfScenariosThatAllSkipOnTheStoresAskedForDoesNotPass() {
        LabRun run = LabRun.of("check", "--stores", "memory", "--scenarios", "eviction");
        assertThat(run.exitCode()).as(run.out()).isEqualTo(1);
        assertThat(run.out()).contains("SKIP memory eviction").contains("check: 0 passed, 0 failed")
                .contains("none of the scenarios asked for (eviction) could be checked on memory");
    }

    @Test
    void everyNumberOptionSaysItsRangeInItsHelp() {
        assertThat(LabRun.of("scenario", "in-flight", "--help").out().replaceAll("\\s+", " ")).contains("1 to 60000").contains("0 to 60000")
                .contains("2 to 1000").contains("1 to 86399");
        assertThat(LabRun.of("load", "--help").out().replaceAll("\\s+", " ")).contains("1 to 1024").contains("1 to 100000000")
                .contains("1 to 2147483647").contains("0 to 1").contains("0 to 10000").contains("from 100ms to 1h")
                .contains("any 64-bit integer");
        assertThat(ScenarioOptions.MAX_LEASE_S).isEqualTo(dev.idemlab.idempotency.IdempotencyConfig.DEFAULT_TTL.toSeconds() - 1);
    }

    @Test
    void aThousandCallersAllStartWhileTheFirstIsStillInsideTheProvider() throws Exception {
        // Every caller's thread exists and is parked before the clock starts; the run counts the late ones.
        LabRun run = LabRun.of("scenario", "in-flight", "--policy", "raise", "--callers", "1000", "--store", "memory",
                "--latency-ms", "5000", "--retry-at-ms", "200", "--format", "json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode raise = new ObjectMapper().readTree(run.out()).get(0);
        JsonNode callers = raise.get("callers");
        long firstAnswered = callers.get(0).get("endMs").asLong();
        long late = 0;
        for (int i = 1; i < callers.size(); i++) {
            if (callers.get(i).get("startMs").asLong() >= firstAnswered) {
                late++;
            }
        }
        assertThat(raise.get("settings").get("lateCallers").asLong()).as("the run counts its late callers").isEqualTo(late);
        assertThat(late).as("a 5 s provider leaves every retry time to start").isZero();
        assertThat(raise.get("note").asText()).isEmpty();
        assertThat(raise.get("charges")).hasSize(1);
        assertThat(raise.get("responses")).hasSize(1000);
        for (int i = 1; i < 1000; i++) {
            assertThat(raise.get("responses").get(i).asText()).isEqualTo("IdempotencyInProgressException");
        }
    }

    @Test
    void aKeyOf256CharactersIsAUsageError() {
        LabRun run = LabRun.of("scenario", "in-flight", "--key", "k".repeat(256));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("key must be 1 to 255 Unicode code points, got 256");
    }

    @Test
    void helpAndVersionExitZero() {
        assertThat(LabRun.of("--help").out()).contains("scenario").contains("check");
        assertThat(LabRun.of("scenario", "in-flight", "--help").out().replaceAll("\\s+", " ")).contains("--retry-at-ms").contains("--callers");
        assertThat(LabRun.of("--version").exitCode()).isZero();
    }

    /**
     * Every command's help renders without picocli's own warnings: a description with a bare '%' is
     * printed raw, with a WARN line on standard error per rendering.
     */
    @Test
    void everyCommandsHelpRendersWithoutAWarning() {
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            CommandLine root = LabCommand.commandLine(dev.idemlab.lab.scenario.CoordinatorFactory.LIBRARY);
            assertThat(root.getUsageMessage()).contains("scenario");
            root.getSubcommands().values().forEach(sub -> assertThat(sub.getUsageMessage()).contains("--help"));
        } finally {
            System.setErr(stderr);
        }
        assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("picocli WARN");
    }
}
