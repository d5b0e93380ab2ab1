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
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab probe} against the demo {@code lab serve} runs, on the in-memory store, over real HTTP. The
 * provider takes 500 ms per charge, so the probe's concurrent requests surely meet the first one in
 * flight; nothing here asserts a duration.
 */
class ProbeCommandTest {

    /** A UUID in its canonical form, as {@code UUID.randomUUID().toString()} writes it. */
    private static final Pattern UUID_FORM = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private static DemoServer serve(LabPolicy policy) throws Exception {
        return serve(policy, Duration.ofMillis(500), true);
    }

    /**
     * @param latency the provider's time per charge: 500 ms where the concurrent requests must surely meet
     *     the first in flight, less where a test looks at other rows
     * @param guarded false for the same handlers without the idempotency filter: a request without a key runs
     */
    private static DemoServer serve(LabPolicy policy, Duration latency, boolean guarded) throws Exception {
        DemoProvider provider = DemoProvider.inProcess(latency);
        return DemoServer.start(new InMemoryIdempotencyStore(), policy, IdempotencyConfig.ofDefaults(),
                provider.provider(), provider.failNext(), 0, guarded);
    }

    private static LabRun probe(DemoServer server, String... options) {
        String[] args = new String[options.length + 3];
        args[0] = "probe";
        args[1] = "--url";
        args[2] = server.uri() + "/orders/o-1/charge";
        System.arraycopy(options, 0, args, 3, options.length);
        return LabRun.of(args);
    }

    /** The request keys the server charged its provider for, from its {@code GET /ledger}. */
    private static List<String> keysCharged(DemoServer server) throws Exception {
        var ledger = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                server.uri().resolve("/ledger")).header("Authorization", "Bearer client-a").GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        List<String> keys = new java.util.ArrayList<>();
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(ledger.body()).forEach(charge -> {
            // The request's key a charge was made for: the key the provider got is derived from it.
            if (charge.path("request_key").isTextual()) {
                keys.add(charge.get("request_key").asText());
            }
        });
        return keys;
    }

    /** The lengths of the request keys the server charged its provider for. */
    private static java.util.Set<Integer> keyLengthsCharged(DemoServer server) throws Exception {
        return keysCharged(server).stream().map(String::length).collect(java.util.stream.Collectors.toCollection(
                java.util.TreeSet::new));
    }

    /**
     * An API that publishes that its key is a UUID: a request whose key field is not one String holding a
     * UUID is 400, a UUID key's first answer is replayed. It offers no ledger. One thread serves it.
     */
    private static HttpServer uuidKeysOnly() throws Exception {
        HttpServer api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        Map<String, String> answers = new HashMap<>();
        api.createContext("/", exchange -> {
            List<String> key = exchange.getRequestHeaders().get("Idempotency-Key");
            boolean uuid = key != null && key.size() == 1 && key.get(0).matches("\"" + UUID_FORM.pattern() + "\"");
            byte[] body = (uuid ? answers.computeIfAbsent(key.get(0), k -> "{\"id\":\"ch_" + (answers.size() + 1)
                    + "\"}") : "{}").getBytes(StandardCharsets.UTF_8);
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(uuid ? 201 : 400, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        api.start();
        return api;
    }

    /**
     * Issue 28, item 3: "no key gives 400" was this lab's rule; an API whose key is optional declares so,
     * and the row is judged by what it declares, either way.
     */
    @ParameterizedTest(name = "filter {0}, --key {1}: {2}")
    @CsvSource({
            "false, optional, pass, 201",
            "false, required, fail, 201",
            "true,  optional, fail, 400",
            "true,  required, pass, 400"
    })
    void theNoKeyRowIsJudgedByTheDeclaredKeyRule(boolean guarded, String key, String verdict, int status)
            throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE, Duration.ofMillis(100), guarded)) {
            LabRun run = probe(server, "--key", key);
            String expected = key.equals("optional") ? "2xx \\(the API's published rule: the key is optional\\)"
                    : "400 \\(the API's published rule: a key is required; draft 2.7\\)";
            assertThat(ProbeTable.rows(run.out())).as(run.out() + run.err())
                    .containsPattern(ProbeTable.row(verdict, "no key", expected + " \\| " + status + "\\b.*"));
            if (verdict.equals("fail")) {
                assertThat(run.exitCode()).isEqualTo(1);
                assertThat(ProbeTable.flat(run.out())).contains("violated (no key): a request without a key ")
                        .contains("(the API's published rule");
            } else {
                assertThat(run.out()).doesNotContain("violated (no key)");
            }
        }
    }

    @Test
    void aDeclaredKeyMaxLengthSetsTheLengthsSentAndJudgesThemByTheApisRule() throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE, Duration.ofMillis(100), true)) {
            LabRun run = probe(server, "--key-max-length", "100");
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(ProbeTable.rows(run.out())).doesNotContain("key of 255").doesNotContain("key of 256")
                    .containsPattern(ProbeTable.row("pass", "key of 100 characters", "2xx \\(the API's published rule: "
                            + "keys up to 100 characters\\) \\| 201 ch_\\d+"))
                    // The lab's own server takes keys up to 255: the API's declared 100 is what it breaks.
                    .containsPattern(ProbeTable.row("fail", "key of 101 characters", "400 \\(the API's published rule: "
                            + "longer than 100\\) \\| 201 ch_\\d+"));
            assertThat(ProbeTable.flat(run.out())).contains("violated (key of 101 characters): a key longer than 100 characters is a client error, "
                            + "400 (the API's published rule)");
            assertThat(keyLengthsCharged(server)).contains(100, 101).doesNotContain(255, 256);
        }
    }

    /**
     * Issue 28, item 3: an API may publish that its key is a UUID. The lab's own server takes any key up to
     * 255 characters, so it breaks that rule on the one row that sends a key that is not a UUID, and only there.
     */
    @Test
    void aDeclaredUuidKeyFormatSendsUuidsAndOneKeyThatIsNotOne() throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE, Duration.ofMillis(100), true)) {
            LabRun run = probe(server, "--key-format", "uuid");
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(ProbeTable.rows(run.out())).doesNotContain("key of 255").doesNotContain("key of 256")
                    .containsPattern(ProbeTable.row("fail", "key not a UUID \\(36 characters\\)", "400 \\(the API's "
                            + "published rule: the key is a UUID\\) \\| 201 ch_\\d+: accepted"));
            assertThat(ProbeTable.flat(run.out())).contains("violated (key not a UUID (36 characters)): a key that is not a UUID is a client error, "
                            + "400 (the API's published rule: the key is a UUID)")
                    .contains("1 check(s) failed");
            List<String> keys = keysCharged(server);
            assertThat(keys).filteredOn(key -> !UUID_FORM.matcher(key).matches()).singleElement()
                    .satisfies(key -> assertThat(key).hasSize(36));
            assertThat(keys).filteredOn(key -> UUID_FORM.matcher(key).matches()).hasSizeGreaterThanOrEqualTo(4);
        }
    }

    /** The probe's own keys are no UUIDs: such an API refuses every row's key, and only uuid gets past it. */
    @ParameterizedTest(name = "--key-format {0}")
    @CsvSource({"uuid", "any"})
    void anApiThatTakesOnlyUuidsIsJudgedByItsOtherRulesUnderTheUuidFormat(String format) throws Exception {
        HttpServer api = uuidKeysOnly();
        try {
            LabRun run = LabRun.of("probe", "--url", "http://127.0.0.1:" + api.getAddress().getPort() + "/charge",
                    "--key-format", format);
            if (format.equals("uuid")) {
                assertThat(ProbeTable.rows(run.out())).as(run.out() + run.err())
                        .containsPattern(ProbeTable.row("pass", "key not a UUID \\(36 characters\\)",
                                "400 \\(the API's published rule.* \\| 400"))
                        .containsPattern(ProbeTable.row("note", "concurrent identical x8",
                                ".* \\| 8x201; 1 distinct 2xx body; 1 resource id .*"))
                        .containsPattern(ProbeTable.row("pass", "retry after success",
                                ".* \\| 201 ch_\\d+, then 201 ch_\\d+, identical body"))
                        .doesNotContain("key of 255");
            } else {
                assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
                assertThat(ProbeTable.rows(run.out()))
                        .containsPattern(ProbeTable.row("fail", "concurrent identical x8", ".* \\| 8x400; .*"))
                        .doesNotContain("key not a UUID");
                assertThat(run.out()).contains("violated (retry after success)");
            }
        } finally {
            api.stop(0);
        }
    }

    /** The lab's own server does not store a 5xx: the retry runs again, which only {@code no} declares. */
    @ParameterizedTest(name = "--stores-5xx {0}: {1}")
    @CsvSource({"yes, fail", "no, pass"})
    void theRetryAfterA5xxIsJudgedByTheDeclaredStoringRule(String stores, String verdict) throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE, Duration.ofMillis(100), true)) {
            LabRun run = probe(server, "--stores-5xx", stores);
            assertThat(ProbeTable.rows(run.out())).as(run.out() + run.err())
                    .containsPattern(ProbeTable.row(verdict, "retry after a 5xx", ".*\\(the API's published rule: a 5xx is "
                            + (stores.equals("yes") ? "stored" : "not stored") + "\\) \\| 504, then 201 ch_\\d+; ledger: 1"));
            if (verdict.equals("fail")) {
                assertThat(run.exitCode()).isEqualTo(1);
                assertThat(ProbeTable.flat(run.out())).contains("violated (retry after a 5xx): a 5xx is stored: the retry after it gets "
                        + "the same 5xx replayed");
            } else {
                assertThat(run.exitCode()).isZero();
                assertThat(run.out()).contains("every check passed");
            }
        }
    }

    /** Under wait every duplicate gets the first one's 201; under raise they get 409. */
    @ParameterizedTest(name = "serve {0}, --in-flight {1}: {2}")
    @CsvSource({
            "WAIT,  409,  fail",
            "RAISE, 409,  pass",
            "RAISE, wait, fail",
            "WAIT,  wait, pass"
    })
    void theConcurrentRowIsJudgedByTheDeclaredInFlightRule(LabPolicy policy, String inFlight, String verdict)
            throws Exception {
        try (DemoServer server = serve(policy)) {
            LabRun run = probe(server, "--in-flight", inFlight);
            assertThat(ProbeTable.rows(run.out())).as(run.out() + run.err())
                    .containsPattern(ProbeTable.row(verdict, "concurrent identical x8", "one execution, .*\\(the API's "
                            + "published rule: .* \\| " + (policy == LabPolicy.RAISE ? "1x201 7x409" : "8x201")
                            + ".*ledger: 1 charge\\b.*"));
            if (verdict.equals("fail")) {
                assertThat(run.exitCode()).isEqualTo(1);
                assertThat(ProbeTable.flat(run.out())).contains("violated (concurrent identical x8): a request whose key is in flight "
                        + (inFlight.equals("409") ? "is refused with 409" : "waits for the first one's answer, never 409"));
            } else {
                assertThat(run.exitCode()).isZero();
            }
        }
    }

    @Test
    void helpNamesTheOptionsThatDeclareTheApisRules() {
        LabRun run = LabRun.of("probe", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--key=required|optional").contains("--key-max-length=N")
                .contains("--key-format=any|uuid")
                .contains("--stores-5xx=yes|no").contains("--in-flight=wait|409|either");
        assertThat(run.out().replaceAll("\\s+", " ")).contains("keys of 255 and 256 characters (N and N+1 with "
                + "--key-max-length N; with --key-format uuid, every key a random UUID and one of 36 characters that is "
                + "not a UUID instead)").contains("the API's published rule where --key, --key-format, "
                + "--key-max-length, --stores-5xx or --in-flight declares it");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = LabPolicy.class, names = {"WAIT", "RAISE"})
    void everyCheckPassesAgainstTheFilter(LabPolicy policy) throws Exception {
        try (DemoServer server = serve(policy)) {
            LabRun run = LabRun.of("probe", "--url", server.uri() + "/orders/o-1/charge");
            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(ProbeTable.flat(run.out())).contains("every check passed").doesNotContain("fail").contains("ledger: GET /ledger");
            assertThat(ProbeTable.rows(run.out()))
                    .containsPattern(ProbeTable.row("pass", "concurrent identical x8", ".*ledger: 1 charge.*"))
                    .containsPattern(ProbeTable.row("pass", "same key, another body", ".* 422.*"))
                    .containsPattern(ProbeTable.row("pass", "retry after a 5xx", ".* \\| 504, then 201 ch_\\d+; ledger: 1.*"));
            if (policy == LabPolicy.RAISE) {
                assertThat(ProbeTable.rows(run.out())).contains("1x201 7x409");
            } else {
                assertThat(ProbeTable.rows(run.out())).contains("8x201; 1 distinct 2xx body");
            }
        }
    }

    /**
     * Issue 28: the probe sent one 255-character key on every run, so a second probe of a server failed,
     * and so did a probe of another path of it.
     */
    @Test
    void aSecondProbeOfTheSameServerPassesTooAndSoDoesOneOfAnotherPath() throws Exception {
        try (DemoServer server = serve(LabPolicy.RAISE)) {
            for (int run = 1; run <= 3; run++) {
                String order = run < 3 ? "o-1" : "o-2";
                LabRun probe = LabRun.of("probe", "--url", server.uri() + "/orders/" + order + "/charge");
                assertThat(probe.exitCode()).as("run " + run + ": " + probe.out() + probe.err()).isZero();
                assertThat(probe.out()).contains("every check passed");
                assertThat(ProbeTable.rows(probe.out())).contains("422 (draft 2.7)").contains("this lab's rule");
            }
        }
    }

    @Test
    void aResultCacheFailsTheConcurrentRowNamingTheRule() throws Exception {
        try (DemoServer server = serve(LabPolicy.RUN)) {
            LabRun run = LabRun.of("probe", "--url", server.uri() + "/orders/o-1/charge");
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(ProbeTable.rows(run.out())).containsPattern(ProbeTable.row("fail", "concurrent identical x8",
                    ".*1 resource id .*ledger: [2-8] charges.*"));
            assertThat(ProbeTable.flat(run.out())).contains("violated (concurrent identical x8): exactly once under concurrency");
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
            "probe --url http://127.0.0.1:1/a --key maybe|--key must be required or optional",
            "probe --url http://127.0.0.1:1/a --key-max-length 0|--key-max-length must be between 1 and 10000",
            "probe --url http://127.0.0.1:1/a --key-max-length 10001|--key-max-length must be between 1 and 10000",
            "probe --url http://127.0.0.1:1/a --key-max-length many|Invalid value for option '--key-max-length'",
            "probe --url http://127.0.0.1:1/a --stores-5xx sometimes|--stores-5xx must be yes or no",
            "probe --url http://127.0.0.1:1/a --key-format guid|--key-format must be any or uuid",
            "probe --url http://127.0.0.1:1/a --key-format uuid --key-max-length 36|--key-format uuid cannot go with "
                    + "--key-max-length: a UUID's length is fixed",
            "probe --url http://127.0.0.1:1/a --in-flight later|--in-flight must be wait, 409 or either",
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
