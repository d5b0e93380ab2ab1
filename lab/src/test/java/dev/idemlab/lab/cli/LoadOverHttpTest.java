package dev.idemlab.lab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab load --transport http --workers N}: worker JVMs send the load over real HTTP to one demo
 * payment API, and the ledger is read from the service's provider. What is asserted is what the
 * ledger and the workers' own counts guarantee, never a duration or a throughput.
 */
class LoadOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Issue 29: the header said "4 closed-loop clients" when two workers ran four each. */
    @Test
    void theHeaderCountsTheClientsOfEveryWorker() throws Exception {
        LabRun run = LabRun.of("load", "--transport", "http", "--workers", "2", "--store", "memory", "--policy", "wait",
                "--duration", "1s", "--clients", "4", "--provider-latency-ms", "5");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("load: 2 worker JVM(s) of 4 clients each (8 in all), closed loop, ")
                .doesNotContain("4 closed-loop clients");
    }

    @Test
    void twoWorkersUnderWaitChargeNoKeyTwiceAndTheTotalIsTheirSum() throws Exception {
        LabRun run = LabRun.of("load", "--transport", "http", "--workers", "2", "--store", "memory", "--policy", "wait",
                "--duration", "2s", "--clients", "4", "--retry-rate", "0.5", "--provider-latency-ms", "20",
                "--format", "json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode wait = JSON.readTree(run.out()).get("runs").get(0);
        assertThat(wait.get("policy").asText()).isEqualTo("wait");
        assertThat(wait.get("transport").asText()).isEqualTo("http");
        assertThat(wait.get("duplicateCharges").asLong()).isZero();
        assertThat(wait.get("disagreements").asLong()).isZero();
        assertThat(wait.get("keysCharged").asLong()).isPositive();
        JsonNode workers = wait.get("workers");
        assertThat(workers).hasSize(2);
        long requests = 0;
        long latencies = 0;
        long handedOff = 0;
        Set<Long> pids = new HashSet<>();
        for (int i = 0; i < workers.size(); i++) {
            JsonNode worker = workers.get(i);
            assertThat(worker.get("worker").asInt()).isEqualTo(i + 1);
            assertThat(worker.get("requests").asLong()).isPositive();
            requests += worker.get("requests").asLong();
            latencies += worker.get("latencyMs").get("count").asLong();
            handedOff += worker.get("duplicatesHandedOff").asLong();
            pids.add(worker.get("pid").asLong());
        }
        assertThat(pids).as("one JVM per worker, none of them this one").hasSize(2)
                .doesNotContain(ProcessHandle.current().pid());
        assertThat(wait.get("requests").asLong()).isEqualTo(requests);
        assertThat(wait.get("latencyMs").get("count").asLong()).isEqualTo(latencies).isEqualTo(requests);
        assertThat(wait.get("retries").asLong()).isEqualTo(handedOff).isPositive();
        assertThat(run.err()).contains("lab: load memory/wait over HTTP, 2 worker(s): " + String.format("%,d", requests)
                + " requests checked in");
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("worker %d stopped", pid)
                    .isNotEqualTo(java.util.Optional.of(true));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "load --workers 2|--workers starts worker processes that send the load over HTTP: use it with --transport http",
            "load --transport http --workers 0|--workers must be between 1 and 64, got 0",
            "load --transport http --workers 65|--workers must be between 1 and 64, got 65",
            "load --transport http --workers 2 --library camel|--library drives the peer libraries in process",
            "load --transport http --rate 100|--rate (open loop) runs in process only",
            "load --transport http --stall 5s:1s --store redis|--stall, --downstream-key and --store-patience-ms run in process only",
            "load --transport http --workers 4 --requests 3|--requests must be at least --workers",
            "load --transport pigeon|--transport must be in-process or http, got 'pigeon'"
    })
    void usageErrorsExitTwoNamingTheRule(String commandLine, String rule) {
        LabRun run = LabRun.of(commandLine.split(" "));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }
}
