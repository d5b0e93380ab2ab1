package dev.idemlab.lab.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.SpringSample;
import dev.idemlab.lab.http.SpringSampleJar;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.http.HttpPaymentProvider;
import dev.idemlab.provider.http.ProviderService;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The Spring Boot sample ({@code examples/spring-boot-payments}) in a child JVM, on the run's Redis or
 * PostgreSQL (the same server and a key prefix of the run's own) and charging the fake provider
 * behind its HTTP service in this JVM; the ledger is read back with {@code GET /ledger}. Under RUN the
 * sample runs in its result-cache mode; under WAIT and RAISE on the starter's reservation with that
 * policy. Thread-safe.
 */
final class SampleRaceApi implements RaceApi {

    /** The target. */
    static final Target TARGET = new Target() {
        @Override
        public RaceApi start(ScenarioContext context, IdempotencyStore store, LabPolicy policy, Timeline timeline,
                             Requests requests) throws IOException, InterruptedException {
            return SampleRaceApi.start(context, store, policy, requests);
        }

        @Override
        public String label(LabPolicy policy) {
            return switch (policy) {
                case RUN -> "the sample's result-cache mode";
                case WAIT -> "the starter's reservation, wait";
                case RAISE -> "the starter's reservation, 409";
            };
        }

        @Override
        public String reportedName() {
            return "spring-sample";
        }

        @Override
        public String summary() {
            return "over HTTP, through the Spring Boot sample";
        }
    };

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final ProviderService providerService;
    private final SpringSample sample;
    private final PaymentProvider ledger;
    private final String store;

    private SampleRaceApi(ProviderService providerService, SpringSample sample, String store) {
        this.providerService = providerService;
        this.sample = sample;
        this.ledger = HttpPaymentProvider.connect(providerService.uri());
        this.store = store;
    }

    private static RaceApi start(ScenarioContext context, IdempotencyStore store, LabPolicy policy, Requests requests)
            throws IOException, InterruptedException {
        // Cannot stage (a SKIP in lab check): no jar built, or a store the sample cannot reach.
        Path jar = SpringSampleJar.find().orElseThrow(() -> new CannotStageException(SpringSampleJar.missing()));
        StoreEndpoint endpoint = StoreEndpoint.sameAs(store).filter(e -> !e.kind().equals("redis-cluster"))
                .orElseThrow(() -> new CannotStageException(CannotStage.sampleCannotReach(context.backend())));
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(context.settings().latency()).build();
        ProviderService service = ProviderService.start(provider);
        SpringSample sample;
        try {
            sample = SpringSample.start(jar, arguments(context, store, endpoint, policy, service.uri()),
                    endpoint.springEnvironment());
        } catch (IOException | RuntimeException | InterruptedException e) {
            service.close();
            throw e;
        }
        SampleRaceApi api = new SampleRaceApi(service, sample, endpoint.kind());
        try {
            // Off the record: the provider is told to time out before charging, so the ledger stays empty.
            provider.failNextCalls(2);
            String key = "warm-up-" + UUID.randomUUID();
            requests.send(sample.uri(), key, ScenarioSettings.AMOUNT);
            requests.send(sample.uri(), key, ScenarioSettings.AMOUNT);
            if (!provider.chargeIds().isEmpty()) {
                throw new IllegalStateException("the warm-up charged " + provider.chargeIds() + ": the run would count it");
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            api.close();
            throw e;
        }
        return api;
    }

    /** The sample's settings: mode and policy, lease, store-failure mode, the run's key prefix, the provider. */
    private static List<String> arguments(ScenarioContext context, IdempotencyStore store, StoreEndpoint endpoint,
                                          LabPolicy policy, URI provider) {
        List<String> arguments = new ArrayList<>();
        arguments.add("--idempotency.store=" + endpoint.kind());
        arguments.add("--idempotency.key-prefix=" + StoreEndpoint.prefixOf(store));
        arguments.add("--payments.idempotency=" + (policy == LabPolicy.RUN ? "result-cache" : "reservation"));
        arguments.add("--idempotency.policy=" + (policy == LabPolicy.RAISE ? "raise" : "wait"));
        arguments.add("--idempotency.lease=" + context.settings().lease().toMillis() + "ms");
        arguments.add("--idempotency.store-failure-mode="
                + (context.settings().storeFailureMode() == StoreFailureMode.FAIL_OPEN ? "fail-open" : "fail-closed"));
        arguments.add("--payments.provider-url=" + provider);
        return arguments;
    }

    @Override
    public URI uri() {
        return sample.uri();
    }

    @Override
    public PaymentProvider ledger() {
        return ledger;
    }

    /** The sample's {@code idempotency.storage.errors} meter, read from its actuator. */
    @Override
    public long storageErrors() {
        try {
            HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(
                    sample.uri().resolve("/actuator/metrics/idempotency.storage.errors")).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 404) {
                return 0; // no meter: nothing was counted (the result-cache mode has no coordinator)
            }
            for (JsonNode measurement : JSON.readTree(answer.body()).path("measurements")) {
                if (measurement.path("statistic").asText().equals("COUNT")) {
                    return measurement.path("value").asLong();
                }
            }
            throw new IllegalStateException("the sample's storage-error meter has no count: " + answer.body());
        } catch (IOException e) {
            throw new IllegalStateException("the sample's storage-error meter could not be read: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the sample's storage-error meter", e);
        }
    }

    @Override
    public String note() {
        return "over HTTP: the Spring Boot sample (child JVM, pid " + sample.pid() + ") at " + sample.uri() + " on "
                + store + ", charging the provider service at " + providerService.uri() + "; callers are JDK HttpClients";
    }

    @Override
    public void close() {
        try {
            sample.close();
        } finally {
            providerService.close();
        }
    }
}
