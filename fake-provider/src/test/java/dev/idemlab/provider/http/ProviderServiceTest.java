package dev.idemlab.provider.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.provider.CallGates;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;
import dev.idemlab.provider.ProviderTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The service's HTTP contract, byte for byte where it matters, against a real Jetty. */
class ProviderServiceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
    private ProviderService service = ProviderService.start(provider);

    @AfterEach
    void stop() {
        service.close();
    }

    private void restartWith(FakePaymentProvider other) {
        service.close();
        provider = other;
        service = ProviderService.start(other);
    }

    @Test
    void the_service_listens_on_loopback() {
        assertThat(service.uri().getHost()).isEqualTo("127.0.0.1");
        assertThat(service.port()).isPositive();
        assertThat(service.uri().toString()).isEqualTo("http://127.0.0.1:" + service.port());
    }

    @Test
    void a_new_charge_is_201_and_a_replay_200_with_the_same_charge() throws Exception {
        HttpResponse<String> first = post("/charges", "{\"order_id\":\"order-42\",\"amount\":10,\"idempotency_key\":\"k1\"}");
        HttpResponse<String> replay = post("/charges", "{\"order_id\":\"order-42\",\"amount\":10,\"idempotency_key\":\"k1\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Location")).contains("/charges/ch_1");
        assertThat(first.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        assertThat(json(first)).isEqualTo(json("{\"id\":\"ch_1\",\"order_id\":\"order-42\",\"amount\":10,\"idempotency_key\":\"k1\"}"));
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(json(replay)).isEqualTo(json(first));
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"k1", "\"k1\""})
    void the_key_may_come_as_a_header(String header) throws Exception {
        post("/charges", "{\"order_id\":\"order-42\",\"amount\":10}", header);
        HttpResponse<String> replay = post("/charges", "{\"order_id\":\"order-42\",\"amount\":10,\"idempotency_key\":\"k1\"}");

        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(provider.ledger()).containsExactly(new Charge("ch_1", "order-42", 10, "k1"));
    }

    @Test
    void the_ledger_and_one_charge_read_back() throws Exception {
        HttpPaymentProvider client = HttpPaymentProvider.connect(service.uri());
        client.charge("order-42", 10, null);
        client.charge("order-43", 20, "k2");

        HttpResponse<String> ledger = get("/ledger");
        HttpResponse<String> one = get("/charges/ch_2");

        assertThat(ledger.statusCode()).isEqualTo(200);
        assertThat(json(ledger)).isEqualTo(json("[{\"id\":\"ch_1\",\"order_id\":\"order-42\",\"amount\":10,\"idempotency_key\":null},"
                + "{\"id\":\"ch_2\",\"order_id\":\"order-43\",\"amount\":20,\"idempotency_key\":\"k2\"}]"));
        assertThat(json(one)).isEqualTo(json(ledger).get(1));
    }

    @Test
    void an_unknown_charge_or_route_is_a_404_problem() throws Exception {
        assertProblem(get("/charges/ch_9"), 404, "no charge ch_9");
        assertProblem(get("/refunds"), 404, "no route for /refunds");
        assertThat(HttpPaymentProvider.connect(service.uri()).findCharge("ch_9")).isEmpty();
    }

    @Test
    void a_wrong_method_is_a_405_problem_naming_the_allowed_ones() throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(service.uri().resolve("/charges"))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());

        assertProblem(answer, 405, "allowed: GET, POST");
        assertThat(answer.headers().firstValue("Allow")).contains("GET, POST");
    }

    /** Issue 42: the lookup a caller that lost an answer makes before it charges again. */
    @Test
    void charges_are_listed_by_their_idempotency_key_and_a_lookup_without_one_is_a_400() throws Exception {
        post("/charges", "{\"order_id\":\"order-42\",\"amount\":10,\"idempotency_key\":\"k 1&x\"}");
        post("/charges", "{\"order_id\":\"order-43\",\"amount\":20,\"idempotency_key\":\"k2\"}");

        HttpResponse<String> found = get("/charges?idempotency_key=k+1%26x");
        HttpResponse<String> none = get("/charges?idempotency_key=k3");

        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(json(found)).isEqualTo(json("[{\"id\":\"ch_1\",\"order_id\":\"order-42\",\"amount\":10,"
                + "\"idempotency_key\":\"k 1&x\"}]"));
        assertThat(json(none)).isEqualTo(json("[]"));
        assertProblem(get("/charges"), 400, "GET /charges?idempotency_key=K");
        assertProblem(get("/charges?idempotency_key=a&idempotency_key=b"), 400, "one idempotency_key");
    }

    /** A malformed escape in the lookup's key was a 500 with an ERROR log: it is the client's error. */
    @ParameterizedTest
    @CsvSource({"k%", "k%2", "k%zz"})
    void a_lookup_whose_key_has_a_malformed_escape_is_a_400_naming_the_rule(String key) throws Exception {
        // Sent as written: a URI would refuse to carry the malformed escape, a client on the wire need not.
        HttpURLConnection lookup = (HttpURLConnection) new URL(service.uri().toURL(),
                "/charges?idempotency_key=" + key).openConnection();
        try {
            assertThat(lookup.getResponseCode()).isEqualTo(400);
            try (InputStream body = lookup.getErrorStream()) {
                JsonNode problem = new ObjectMapper().readTree(body);
                assertThat(problem.path("status").asInt()).isEqualTo(400);
                assertThat(problem.path("detail").asText()).contains("each % is followed by two hex digits");
            }
        } finally {
            lookup.disconnect();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "not json                                              | the body must be one JSON object",
        "[1, 2]                                                | the body must be one JSON object",
        "{\"order_id\":\"o\",\"amount\":10} {}                   | the body must be one JSON object",
        "{\"amount\":10}                                       | order_id must be a non-empty string",
        "{\"order_id\":\"\",\"amount\":10}                       | order_id must be a non-empty string",
        "{\"order_id\":\"o\"}                                  | amount must be a positive integer in minor units",
        "{\"order_id\":\"o\",\"amount\":0}                       | amount must be a positive integer in minor units",
        "{\"order_id\":\"o\",\"amount\":\"10\"}                  | amount must be a positive integer in minor units",
        "{\"order_id\":\"o\",\"amount\":10.5}                    | amount must be a positive integer in minor units",
        "{\"order_id\":\"o\",\"amount\":10,\"fence\":\"x\"}        | fence must be an integer",
        "{\"order_id\":\"o\",\"amount\":10,\"idempotency_key\":7} | idempotency_key must be a string",
        "{\"order_id\":\"o\",\"amount\":10,\"idempotency_key\":\"\"} | idempotency_key must be 1 to 255 characters",
        "{\"order_id\":\"o\",\"amount\":10,\"orderId\":\"o\"}       | unknown field 'orderId'",
        "{\"order_id\":\"o\",\"amount\":10,\"amount\":11}          | the body must be one JSON object",
    })
    void a_bad_charge_is_a_400_problem_naming_the_rule(String body, String rule) throws Exception {
        assertProblem(post("/charges", body), 400, rule);
        assertThat(provider.callCount()).isZero();
    }

    @Test
    void a_header_key_that_disagrees_with_the_body_is_refused() throws Exception {
        HttpResponse<String> answer = post("/charges", "{\"order_id\":\"o\",\"amount\":10,\"idempotency_key\":\"k1\"}", "k2");

        assertProblem(answer, 400, "must agree");
    }

    @Test
    void a_body_over_the_limit_is_a_413_problem() throws Exception {
        String body = "{\"order_id\":\"" + "o".repeat(ProviderRoutes.MAX_BODY_BYTES) + "\",\"amount\":10}";

        assertProblem(post("/charges", body), 413, "at most");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{}                                                 | exactly one of fail_next and charge_then_time_out_next",
        "{\"fail_next\":1,\"charge_then_time_out_next\":1}  | exactly one of fail_next and charge_then_time_out_next",
        "{\"fail_next\":-1}                                 | fail_next must be a non-negative integer",
        "{\"fail_next\":\"2\"}                              | fail_next must be a non-negative integer",
        "{\"fail_later\":2}                                 | unknown field 'fail_later'",
    })
    void a_bad_fault_order_is_a_400_problem_naming_the_rule(String body, String rule) throws Exception {
        assertProblem(post("/faults", body), 400, rule);
    }

    @Test
    void faults_planned_over_the_wire_meet_the_next_calls() {
        HttpPaymentProvider client = HttpPaymentProvider.connect(service.uri());
        client.failNextCalls(1);
        client.chargeThenTimeOutNextCalls(1);

        assertThatThrownBy(() -> client.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        assertThat(client.chargeCount()).isZero();
        assertThatThrownBy(() -> client.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        assertThat(client.chargeIds()).containsExactly("ch_1");
        assertThat(client.charge("order-42", 10, "k1").id()).isEqualTo("ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void a_planned_timeout_is_a_504_problem() throws Exception {
        provider.failNextCalls(1);

        assertProblem(post("/charges", "{\"order_id\":\"order-42\",\"amount\":10}"), 504, "order-42");
    }

    /** The provider is still charging when the client gives up: the caller cannot know it charged. */
    @Test
    void no_answer_within_the_request_timeout_is_a_provider_timeout() throws Exception {
        CallGates gates = new CallGates();
        CountDownLatch charged = new CountDownLatch(1);
        restartWith(FakePaymentProvider.builder().latency(gates.latency()).observer(new ProviderObserver() {
            @Override
            public void charged(int callNumber, Charge charge) {
                charged.countDown();
            }
        }).build());
        HttpPaymentProvider client = HttpPaymentProvider.builder(service.uri()).requestTimeout(Duration.ofMillis(200)).build();
        try {
            assertThatThrownBy(() -> client.charge("order-42", 10, "k1"))
                    .isInstanceOfSatisfying(ProviderTimeoutException.class,
                            e -> assertThat(e.orderId()).isEqualTo("order-42"));
        } finally {
            gates.open(1);
        }
        assertThat(charged.await(CallGates.PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void an_unreachable_service_is_a_provider_http_exception() {
        URI gone = service.uri();
        service.close();
        HttpPaymentProvider client = HttpPaymentProvider.connect(gone);

        assertThatThrownBy(client::ledger).isInstanceOfSatisfying(ProviderHttpException.class,
                e -> assertThat(e.status()).isEqualTo(ProviderHttpException.NO_STATUS));
    }

    @Test
    void the_client_refuses_a_bad_address_or_timeout() {
        assertThatThrownBy(() -> HttpPaymentProvider.connect(URI.create("/charges")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpPaymentProvider.builder(service.uri()).requestTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> ProviderService.start(provider, 70000))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private void assertProblem(HttpResponse<String> answer, int status, String detail) throws IOException {
        assertThat(answer.statusCode()).isEqualTo(status);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = json(answer);
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("type").asText()).startsWith("/problems/");
        assertThat(problem.path("title").asText()).isNotBlank();
        assertThat(problem.path("detail").asText()).contains(detail);
        assertThat(answer.body()).doesNotContain("Exception", "\tat ");
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(service.uri().resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return post(path, body, null);
    }

    private HttpResponse<String> post(String path, String body, String keyHeader) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(service.uri().resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (keyHeader != null) {
            request.header("Idempotency-Key", keyHeader);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> answer) throws IOException {
        return JSON.readTree(answer.body());
    }

    private static JsonNode json(String text) throws IOException {
        return JSON.readTree(text);
    }
}
