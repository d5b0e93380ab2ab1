package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.http.DemoProvider;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab probe} against the demo {@code lab serve} runs, on the in-memory store, over real HTTP. The
 * provider takes 500 ms per charge, so the probe's concurrent requests surely meet the first one in
 * flight; nothing here asserts a duration.
 */
class ProbeCommandTest {

    private static DemoServer serve(LabPolicy policy) throws Exception {
        DemoProvider provider = DemoProvider.inProcess(Duration.ofMillis(500));
        return DemoServer.start(new InMemoryIdempotencyStore(), policy, IdempotencyConfig.ofDefaults(),
                provider.provider(), provider.failNext(), 0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = LabPolicy.class, names = {"WAIT", "RAISE"})
    void everyCheckPassesAgainstTheFilter(LabPolicy policy) throws Exception {
        try (DemoServer server = serve(policy)) {
            LabRun run = LabRun.of("probe", "--url", server.uri() + "/orders/o-1/charge");
            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("every check passed").doesNotContain("fail").contains("ledger: GET /ledger")
                    .containsPattern("concurrent identical x8 .*ledger: 1 charge .*pass")
                    .containsPattern("same key, another body .* 422 .*pass")
                    .containsPattern("retry after a 5xx .* 504, then 201 ch_\\d+; ledger: 1 .*pass");
            if (policy == LabPolicy.RAISE) {
                assertThat(run.out()).contains("1x201 7x409");
            } else {
                assertThat(run.out()).contains("8x201; 1 distinct 2xx body");
            }
        }
    }

    /** Issue 28: the probe sent one 255-character key on every run, so a second probe of a server failed. */
    @Test
    void aSecondProbeOfTheSameServerPassesToo() throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE)) {
            for (int run = 1; run <= 2; run++) {
                LabRun probe = LabRun.of("probe", "--url", server.uri() + "/orders/o-1/charge");
                assertThat(probe.exitCode()).as("run " + run + ": " + probe.out() + probe.err()).isZero();
                assertThat(probe.out()).contains("every check passed").contains("422 (draft 2.7)")
                        .contains("this lab's rule");
            }
        }
    }

    @Test
    void aResultCacheFailsTheConcurrentRowNamingTheRule() throws Exception {
        try (DemoServer server = serve(LabPolicy.RUN)) {
            LabRun run = LabRun.of("probe", "--url", server.uri() + "/orders/o-1/charge");
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(run.out()).containsPattern("concurrent identical x8 .*1 resource id .*ledger: [2-8] charges .*fail")
                    .contains("violated (concurrent identical x8): exactly once under concurrency");
        }
    }

    @Test
    void clientBSendingClientAsKeyAndBodyGetsItsOwnChargeNeverAsResponse() throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE)) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.util.function.Function<String, java.net.http.HttpRequest> as = client -> java.net.http.HttpRequest
                    .newBuilder(server.uri().resolve("/orders/o-1/charge"))
                    .header("Authorization", "Bearer " + client).header("Content-Type", "application/json")
                    .header("Idempotency-Key", "\"order-o-1\"")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"amount\":10}")).build();
            var handler = java.net.http.HttpResponse.BodyHandlers.ofString();
            var a = http.send(as.apply("client-a"), handler);
            var b = http.send(as.apply("client-b"), handler);
            var aAgain = http.send(as.apply("client-a"), handler);
            assertThat(a.body()).contains("\"id\":\"ch_1\"");
            assertThat(b.statusCode()).isEqualTo(201);
            assertThat(b.body()).contains("\"id\":\"ch_2\"").isNotEqualTo(a.body());
            assertThat(b.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(aAgain.body()).isEqualTo(a.body());
            assertThat(aAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "probe --url ftp://x/y|--url must be an absolute http URL",
            "probe --url http://127.0.0.1:1/a --method GET|--method must be POST or PATCH",
            "probe --url http://127.0.0.1:1/a --body {}|--body must contain the {amount} placeholder",
            "probe --url http://127.0.0.1:1/a --concurrency 1|--concurrency must be between 2 and 256",
            "probe --url http://127.0.0.1:1/a --path x|--path must start with '/'",
            "serve --store floppy|--store must be one of",
            "serve --store memory --port 70000|--port must be 0 to 65535",
            "serve --store memory --policy maybe|Invalid value for option '--policy'"
    })
    void usageErrorsExitTwoWithTheRule(String commandLine, String rule) {
        LabRun run = LabRun.of(commandLine.split(" "));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ");
    }

    @Test
    void nothingListeningIsAFailureNotAStackTrace() {
        LabRun run = LabRun.of("probe", "--url", "http://127.0.0.1:1/orders/o-1/charge");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("nothing answers at").doesNotContain("\tat ");
    }
}
