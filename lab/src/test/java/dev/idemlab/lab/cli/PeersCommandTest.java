package dev.idemlab.lab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab peers} in this JVM, on a private Redis it starts. The in-flight retry is sent once the
 * first call is inside the provider (a latch in the experiment), and the race is widened (an 800 ms
 * provider, the retry at 200 ms) so that the first call is surely still running; nothing here
 * asserts a duration.
 */
class PeersCommandTest {

    private static final String[] WIDE_RACE = {"--latency-ms", "800", "--retry-at-ms", "200"};
    private static final String CORRECT_EVERYWHERE = "(\\s+one charge, consistent){4}\\n";

    private static String[] args(String... head) {
        List<String> all = new ArrayList<>(List.of("peers"));
        all.addAll(List.of(head));
        all.addAll(List.of(WIDE_RACE));
        return all.toArray(String[]::new);
    }

    @Test
    void waitAndRaiseAreCorrectInEveryExperimentAndJdempotentAnswersNull() {
        LabRun run = LabRun.of(args("--library", "idempotency-lab-wait,idempotency-lab-raise,jdempotent-memory"));
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .containsPattern("peers  \\(redis: redis \\S+ \\(.*\\) at 127\\.0\\.0\\.1:\\d+\\)")
                .contains("without persistence")
                .containsPattern("\\n  idempotency-lab-wait " + CORRECT_EVERYWHERE)
                .containsPattern("\\n  idempotency-lab-raise " + CORRECT_EVERYWHERE)
                .containsPattern("in-flight\\s+responses=\\[ch_1, IdempotencyInProgressException\\]\\s+charges made=\\[ch_1\\]")
                .contains("gate: this project's wait and raise rows are one charge, consistent in every experiment run");
        String jdempotent = run.out().substring(run.out().indexOf("\njdempotent-memory 1.1.0"));
        assertThat(jdempotent).containsPattern(
                "in-flight\\s+responses=\\[ch_1, null\\]\\s+charges made=\\[ch_1\\]\\s+-> wrong answer");
        assertThat(run.out()).containsPattern("\\n  jdempotent-memory\\s+wrong answer\\s+wrong answer\\s+"
                + "one charge, consistent\\s+not supported\\n");
    }

    @Test
    void theResultCacheDoubleChargesInFlightAndJsonCarriesTheLedger() throws Exception {
        LabRun run = LabRun.of(args("--library", "result-cache-run", "--format", "json"));
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode root = new ObjectMapper().readTree(run.out());
        assertThat(root.get("redis").get("origin").asText()).isNotBlank();
        assertThat(root.get("redis").get("version").asText()).isNotBlank();
        assertThat(root.get("gate").get("passed").asBoolean()).isTrue();
        JsonNode cache = root.get("libraries").get(0);
        assertThat(cache.get("name").asText()).isEqualTo("result-cache-run");
        JsonNode inFlight = cache.get("experiments").get(0);
        assertThat(inFlight.get("experiment").asText()).isEqualTo("in-flight");
        assertThat(inFlight.get("verdict").asText()).isEqualTo("double-charge");
        assertThat(inFlight.get("charges")).hasSize(2);
        assertThat(inFlight.get("responses").get(1).asText()).isEqualTo("ch_1");
        assertThat(inFlight.get("calls").get(1).get("caller").asText()).isEqualTo("B");
        JsonNode storeDown = cache.get("experiments").get(3);
        assertThat(storeDown.get("experiment").asText()).isEqualTo("store-down");
        assertThat(storeDown.get("charges")).hasSize(1);
        assertThat(root.get("storeDown").asText()).contains("stopped before the call");
    }

    @Test
    void aCoordinatorThatDoubleChargesUnderWaitFailsThePeersGate() {
        // A result cache dressed up as WAIT: the peers command must not call it correct.
        CoordinatorFactory cacheCalledWait = (store, policy, config) -> CoordinatorFactory.LIBRARY.create(store,
                policy == LabPolicy.WAIT ? LabPolicy.RUN : policy, config);
        LabRun run = LabRun.with(cacheCalledWait, args("--library", "idempotency-lab-wait"));
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).containsPattern("\\n  idempotency-lab-wait\\s+double charge").contains("gate FAILED");
        assertThat(run.err()).contains("lab: FAIL idempotency-lab-wait in-flight: double charge");
    }

    @Test
    void theLoadRunCountsNoDuplicateUnderWaitOrRaise() {
        LabRun run = LabRun.of(args("--library", "idempotency-lab-wait,idempotency-lab-raise", "--load",
                "--load-keys", "3"));
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("load  (8 identical callers released together on each of 3 keys")
                .containsPattern("idempotency-lab-wait\\s+requests=24\\s+charges=3\\s+duplicates=0\\s")
                .containsPattern("idempotency-lab-raise\\s+requests=24\\s+charges=3\\s+duplicates=0\\s");
    }

    @Test
    void markdownHasTheMatrixThePromiseAndASequenceDiagramAndResultsHoldEveryFormat(@TempDir Path dir)
            throws Exception {
        LabRun run = LabRun.of(args("--library", "idempotency-lab-raise", "--format", "markdown",
                "--results", dir.toString()));
        assertThat(run.out()).contains("## Matrix").contains("| `idempotency-lab-raise` |")
                .contains("## What each library's documentation promises, what the ledger shows")
                .contains("\"Under `raise` B is turned away at once (409 in an API)\"")
                .contains("```mermaid\nsequenceDiagram").contains("participant L as idempotency-lab-raise")
                .contains("L-->>CB:").contains("Note over L: provider ledger [ch_1]")
                .contains("wrote peers.txt, peers.json and peers.md to " + dir);
        assertThat(Files.readString(dir.resolve("peers.md"))).contains("## Matrix");
        assertThat(Files.readString(dir.resolve("peers.txt"))).startsWith("peers  (redis: redis ");
        assertThat(new ObjectMapper().readTree(Files.readString(dir.resolve("peers.json"))).get("libraries")).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "peers --library floppy|--library must name libraries among idempotency-lab-wait",
            "peers --latency-ms 0|--latency-ms must be between 1 and",
            "peers --latency-ms 300 --retry-at-ms 300|--retry-at-ms must be 0 or more and below --latency-ms",
            "peers --load --load-keys 0|--load-keys must be between 1 and 100000",
            "peers --redis-from in-process|Invalid value for option '--redis-from'",
            "peers --format pdf|Invalid value for option '--format'",
            "peers --pg-url http://x|(expected jdbc:postgresql://",
            "peers crashed-worker --pg-url http://x|(expected jdbc:postgresql://",
            "peers crashed-worker --pg-from system|Invalid value for option '--pg-from': expected one of url, bundled, container",
            "peers crashed-worker --at floppy|--at must be one of order_created, charge_created, order_paid, receipt_sent or each",
            "peers crashed-worker --downstream-key maybe|--downstream-key must be off, on or both",
            "peers crashed-worker --pause-at paid|--pause-at must be one of order_created",
            "peers crashed-worker --beside result-cash|--beside must name modes among result-cache, reservation"
    })
    void usageErrorsExitTwoWithTheRule(String commandLine, String rule) {
        LabRun run = LabRun.of(commandLine.split(" "));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ");
    }

    @Test
    void helpNamesEveryLibraryAndTheExitCodes() {
        LabRun run = LabRun.of("peers", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--library").contains("idempotency-lab-wait").contains("jdempotent-redis")
                .contains("camel").contains("dbos").contains("--load").contains("--redis-url").contains("--pg-url")
                .contains("crashed-worker").contains("Exit codes");
        assertThat(LabRun.of("--help").out()).contains("peers");
    }
}
