package dev.idemlab.lab.cli;

import com.sun.net.httpserver.HttpServer;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.http.DemoProvider;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab probe} reads the {@code Idempotency-Policy} header an API publishes and checks it: against
 * the demo {@code lab serve} (the servlet filter, on the in-memory store, over real HTTP) the row passes
 * with the policy the server runs with; against an API that publishes a malformed policy, or a key
 * lifetime shorter than its lease, the row fails naming the rule.
 */
class ProbeReadsThePublishedExpiryPolicyTest {

    private static LabRun probe(String url) {
        return LabRun.of("probe", "--url", url);
    }

    @Test
    void theDemoServersPolicyIsReadCheckedAndShownInTheTable() throws Exception {
        DemoProvider provider = DemoProvider.inProcess(Duration.ofMillis(100));
        IdempotencyConfig config = IdempotencyConfig.custom().ttl(Duration.ofHours(2)).lease(Duration.ofSeconds(20))
                .build();
        try (DemoServer server = DemoServer.start(new InMemoryIdempotencyStore(), LabPolicy.RAISE, config,
                provider.provider(), provider.failNext(), 0, true)) {
            LabRun run = probe(server.uri() + "/orders/o-1/charge");

            assertThat(ProbeTable.rows(run.out())).as(run.out() + run.err()).containsPattern(ProbeTable.row("pass",
                    "expiry policy published", "Idempotency-Policy well-formed, ttl >= lease, a retry within ttl "
                            + "replays \\(draft 2.3\\) \\| Idempotency-Policy: ttl=7200, lease=20 on the first answer "
                            + "\\(201 ch_\\d+\\); a retry within it: 201 ch_\\d+, identical body, marked replayed, "
                            + "the same policy"));
            assertThat(run.out()).doesNotContain("violated (expiry policy published)");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "ttl=5, lease=30 | the key's lifetime is shorter than a lease | a key is kept at least as long as a lease",
            "ttl=1h, lease=30 | 'ttl' must be a non-negative Integer of seconds | a published expiry policy is an RFC 8941 Dictionary with ttl"
    })
    void aPolicyThatCannotHoldFailsTheRow(String published, String got, String rule) throws Exception {
        HttpServer api = publishing(published);
        try {
            LabRun run = probe("http://127.0.0.1:" + api.getAddress().getPort() + "/orders/o-1/charge");

            assertThat(ProbeTable.rows(run.out())).as(run.out() + run.err())
                    .containsPattern(ProbeTable.row("fail", "expiry policy published", ".*" + java.util.regex.Pattern
                            .quote(got) + ".*"));
            assertThat(ProbeTable.flat(run.out())).contains("violated (expiry policy published): " + rule);
            assertThat(run.exitCode()).isEqualTo(1);
        } finally {
            api.stop(0);
        }
    }

    @Test
    void anApiThatPublishesNoPolicyIsSkippedNotFailed() throws Exception {
        HttpServer api = publishing(null);
        try {
            LabRun run = probe("http://127.0.0.1:" + api.getAddress().getPort() + "/orders/o-1/charge");

            assertThat(ProbeTable.rows(run.out())).containsPattern(ProbeTable.row("skip", "expiry policy published",
                    ".* without Idempotency-Policy: the API publishes no expiry policy in a header"));
        } finally {
            api.stop(0);
        }
    }

    /** An API that answers every request 201 with one body and {@code policy} in Idempotency-Policy. */
    private static HttpServer publishing(String policy) throws Exception {
        HttpServer api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        api.createContext("/", exchange -> {
            byte[] body = "{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getRequestBody().readAllBytes();
            if (policy != null) {
                exchange.getResponseHeaders().add("Idempotency-Policy", policy);
            }
            exchange.sendResponseHeaders(201, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        api.start();
        return api;
    }
}
