package dev.idemlab.lab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab load} in this JVM. The provider is slow next to the retry delay, so that a duplicate
 * under run is near certain; what is asserted is what the ledger guarantees, never a duration.
 */
class LoadCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void runDoubleChargesAndWaitAndRaiseNeverDo(@TempDir Path dir) throws Exception {
        LabRun run = LabRun.of("load", "--store", "memory", "--requests", "2000", "--clients", "8",
                "--retry-rate", "0.3", "--provider-latency-ms", "20", "--format", "json",
                "--results", dir.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode report = JSON.readTree(run.out().substring(run.out().indexOf('{')));
        assertThat(report.get("passed").asBoolean()).isTrue();
        assertThat(report.get("runs")).hasSize(3).allSatisfy(each -> {
            assertThat(each.get("requests").asLong()).isEqualTo(2000);
            assertThat(each.get("store").get("describe").asText()).startsWith("memory");
            assertThat(each.get("disagreements").asLong()).isZero();
            assertThat(each.get("latencyMs").get("count").asLong()).isEqualTo(2000);
        });
        assertThat(policy(report, "run").get("duplicateCharges").asLong()).isPositive();
        assertThat(policy(report, "wait").get("duplicateCharges").asLong()).isZero();
        assertThat(policy(report, "raise").get("duplicateCharges").asLong()).isZero();
        assertThat(policy(report, "raise").get("inProgress").asLong()).isPositive();
        assertThat(run.out()).contains("wrote " + dir.resolve("load.csv"));
        assertThat(Files.readAllLines(dir.resolve("load.csv"))).hasSize(4)
                .first().asString().startsWith("store,version,origin,policy,");
        assertThat(Files.readString(dir.resolve("load.md"))).contains("| store | policy | requests |");
        for (String chart : new String[] {"throughput.png", "p99.png", "duplicates.png"}) {
            byte[] png = Files.readAllBytes(dir.resolve(chart));
            assertThat(png).hasSizeGreaterThan(1000).startsWith(0x89, 'P', 'N', 'G');
        }
    }

    @Test
    void aCoordinatorThatDoesNotReserveFailsTheGateUnderWait() {
        CoordinatorFactory resultCache = (store, policy, config) -> CoordinatorFactory.LIBRARY.create(store,
                LabPolicy.RUN, config);

        LabRun run = LabRun.with(resultCache, "load", "--store", "memory", "--policy", "wait", "--requests", "600",
                "--clients", "8", "--retry-rate", "0.5", "--provider-latency-ms", "20");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("verdict: FAILED").contains("wait promises exactly-once but charged");
    }

    @Test
    void aStoreWithoutAServerFailsTheRunButTheOthersAreStillReported() throws Exception {
        int dead;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            dead = socket.getLocalPort();
        }
        LabRun run = LabRun.of("load", "--compare", "MEMORY,redis", "--redis-url", "redis://127.0.0.1:" + dead,
                "--policy", "wait", "--requests", "200", "--clients", "2", "--latency-ms", "1", "--format", "json");
        assertThat(run.exitCode()).isEqualTo(1);
        JsonNode report = JSON.readTree(run.out());
        assertThat(report.get("runs")).hasSize(1);
        assertThat(report.get("runs").get(0).get("store").get("describe").asText()).startsWith("memory");
        assertThat(run.err()).contains("lab: redis could not be loaded: nothing answers at 127.0.0.1:" + dead)
                .contains("lab: not in the report: redis could not be loaded")
                .as("one line per finished store and policy when no terminal watches")
                .contains("lab: load memory/wait: 200 requests checked in");
    }

    @Test
    void anUnexpectedExceptionIsLoggedOnceWithItsTypeAndCountedAsIndeterminate() throws Exception {
        CoordinatorFactory broken = (store, policy, config) -> {
            IdempotencyCoordinator real = CoordinatorFactory.LIBRARY.create(store, policy, config);
            return (IdempotencyCoordinator) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {IdempotencyCoordinator.class}, (proxy, method, args) -> {
                        if (method.getName().equals("call")) {
                            throw new IllegalStateException("a bug nobody expected");
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        };
        java.io.PrintStream systemErr = System.err;
        java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
        LabRun run;
        try {
            System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
            run = LabRun.with(broken, "load", "--store", "memory", "--policy", "wait", "--requests", "50",
                    "--clients", "2", "--latency-ms", "1", "--format", "json");
        } finally {
            System.setErr(systemErr);
        }
        JsonNode wait = policy(JSON.readTree(run.out()), "wait");
        assertThat(wait.get("indeterminate").asLong()).isEqualTo(50);
        String log = logged.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(log).contains("an exception the load does not expect").contains("IllegalStateException")
                .contains("a bug nobody expected");
        assertThat(log.split("does not expect", -1)).as("once per type, not once per request").hasSize(2);
    }

    private static JsonNode policy(JsonNode report, String policy) {
        for (JsonNode run : report.get("runs")) {
            if (run.get("policy").asText().equals(policy)) {
                return run;
            }
        }
        throw new AssertionError("no run under " + policy);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "load --retry-rate 1.5|--retry-rate must be between 0 and 1, got 1.5",
            "load --clients 0|--clients must be between 1 and 1024, got 0",
            "load --provider-latency-ms -1|--latency-ms must be between 0 and 10000, got -1",
            "load --latency-ms 10001|--latency-ms must be between 0 and 10000, got 10001",
            "load --requests 9999999999|--requests must be between 1 and 100000000, got 9999999999",
            "load --clients 1025|--clients must be between 1 and 1024, got 1025",
            "load --keys 0|--keys must be between 1 and 2147483647",
            "load --requests 0|--requests must be between 1 and 100000000, got 0",
            "load --duration 5x|'--duration': must be a time from 100ms to 1h written like 500ms, 20s or 1m, got '5x'",
            "load --duration 2h|'--duration': must be a time from 100ms to 1h",
            "load --duration 50ms|'--duration': must be a time from 100ms to 1h",
            "load --duration 1s --requests 10|--duration and --requests both say when to stop",
            "load --compare memory,floppy|--compare must name stores among memory, redis, postgres, redis-cluster, got 'floppy'",
            "load --store memory --compare memory|--store and --compare both name the stores",
            "load --store floppy|--store must be one of",
            "load --policy maybe|Invalid value for option '--policy'"
    })
    void usageErrorsExitTwoNamingTheRule(String commandLine, String rule) {
        LabRun run = LabRun.of(commandLine.split(" "));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void loadWithALibraryDrivesThatPeerWithConcurrentDuplicatesAndCountsThemFromTheLedger() {
        LabRun run = LabRun.of("load", "--library", "redisson-lock");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("redisson-lock +requests=400 +charges=50 +duplicates=0 +per 100,000=0");
    }
}
