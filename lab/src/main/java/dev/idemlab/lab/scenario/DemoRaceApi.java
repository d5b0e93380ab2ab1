package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;

/**
 * The lab's demo server ({@link DemoServer}) behind the idempotency filter, in this JVM, charging an
 * in-process fake provider: what {@code --transport http} runs against. Thread-safe.
 */
final class DemoRaceApi implements RaceApi {

    /** The target. */
    static final Target TARGET = new Target() {
        @Override
        public RaceApi start(ScenarioContext context, IdempotencyStore store, LabPolicy policy, Timeline timeline,
                             Requests requests) throws IOException, InterruptedException {
            IdempotencyConfig config = IdempotencyConfig.custom().lease(context.settings().lease())
                    .storeFailureMode(context.settings().storeFailureMode()).build();
            warmUp(store, policy, config, requests);
            FakePaymentProvider provider = context.provider(timeline);
            return new DemoRaceApi(DemoServer.start(store, policy, config, provider, provider::failNextCalls, 0), provider);
        }

        @Override
        public String label(LabPolicy policy) {
            return switch (policy) {
                case RUN -> "a result cache behind the filter";
                case WAIT -> "opt-in: the retry waits";
                case RAISE -> "409 for the second, the draft's";
            };
        }

        @Override
        public String summary() {
            return "over HTTP";
        }
    };

    private final DemoServer server;
    private final FakePaymentProvider provider;

    private DemoRaceApi(DemoServer server, FakePaymentProvider provider) {
        this.server = server;
        this.provider = provider;
    }

    /** Jetty, the filter and the client warmed up on a throwaway server, key and provider, off the record. */
    private static void warmUp(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config, Requests requests)
            throws IOException, InterruptedException {
        FakePaymentProvider scratch = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        try (DemoServer server = DemoServer.start(store, policy, config, scratch, scratch::failNextCalls, 0)) {
            String key = "warm-up-" + UUID.randomUUID();
            requests.send(server.uri(), key, ScenarioSettings.AMOUNT);
            requests.send(server.uri(), key, ScenarioSettings.AMOUNT);
        }
    }

    @Override
    public URI uri() {
        return server.uri();
    }

    @Override
    public PaymentProvider ledger() {
        return provider;
    }

    @Override
    public long storageErrors() {
        return server.coordinator().stats().totalStorageErrors();
    }

    @Override
    public String note() {
        return "over HTTP: demo server at " + server.uri() + ", callers are JDK HttpClients";
    }

    @Override
    public void close() {
        server.close();
    }
}
