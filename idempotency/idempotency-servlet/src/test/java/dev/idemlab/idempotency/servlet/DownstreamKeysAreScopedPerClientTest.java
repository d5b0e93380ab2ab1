package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 39, defect 4, at the filter: the key an application found to pass to its provider was the
 * client's raw key, so two clients scoped apart by the filter met at the provider. The filter now hands
 * the application the request's downstream key ({@link IdempotencyFilter#DOWNSTREAM_KEY_ATTRIBUTE}):
 * one per client and key, the same on every retry. The application here charges a provider that
 * deduplicates on that key, as real payment providers do: a key it has seen returns the earlier
 * charge and makes no new one.
 */
class DownstreamKeysAreScopedPerClientTest {

    private static final String PATH = "/orders/o-1/charge";
    private static final String BODY = "{\"amount\":10}";

    private final DeduplicatingProviderApp app = new DeduplicatingProviderApp();
    private ServerUnderTest server;

    /** The servers this rule runs on: the servlet filter in Jetty here; the WebFlux filter's suite overrides it. */
    ServerUnderTest.Servers servers() {
        return FilterServer.JETTY;
    }


    @BeforeEach
    void start() throws Exception {
        server = servers().start(Routes.charge().allowAnonymousClients(true).build(), app);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void twoClientsSendingKey0001BothGetTheirChargeMade() throws Exception {
        HttpResponse<byte[]> a = server.send(server.postRequest(PATH, "client-a", "0001", BODY));
        HttpResponse<byte[]> b = server.send(server.postRequest(PATH, "client-b", "0001", BODY));
        HttpResponse<byte[]> anonymous = server.send(server.postRequest(PATH, null, "0001", BODY));

        assertThat(List.of(a.statusCode(), b.statusCode(), anonymous.statusCode())).containsOnly(201);
        assertThat(app.ledger()).as("one charge per client").hasSize(3);
        assertThat(app.ledger().keySet()).doesNotContain("0001").allMatch(key -> key.matches("idem_[0-9a-f]{40}"));
    }

    @Test
    void aClientsRetryGetsTheSameDownstreamKey() throws Exception {
        app.failNext = true;
        HttpResponse<byte[]> failed = server.send(server.postRequest(PATH, "client-a", "0001", BODY));
        HttpResponse<byte[]> retry = server.send(server.postRequest(PATH, "client-a", "0001", BODY));

        assertThat(failed.statusCode()).as("a 5xx is not stored: the retry runs again").isEqualTo(503);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(app.keysSeen).hasSize(2).containsOnly(app.keysSeen.get(0));
        assertThat(app.ledger()).hasSize(1);
    }

    /**
     * A coordinator of the application's own (the interface is public) may derive no downstream key: the
     * handler then finds none, and the request is served. The WebFlux filter put the null into the
     * exchange's attributes, a map that refuses one, and failed every such request.
     */
    @Test
    void aCoordinatorThatDerivesNoDownstreamKeyLeavesTheHandlerWithout() throws Exception {
        IdempotencyCoordinator library = Routes.coordinator(new InMemoryIdempotencyStore(), InFlightPolicy.RAISE);
        IdempotencyCoordinator withoutDownstreamKeys = new IdempotencyCoordinator() {
            @Override
            public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                                    ContextualAction<T, E> action) throws E {
                return library.call(call, codec, context -> action.run(new IdempotencyContext(context.operation(),
                        context.key(), context.fence(), null, context.fingerprint())));
            }

            @Override
            public IdempotencyConfig config() {
                return library.config();
            }

            @Override
            public StoreDescription store() {
                return library.store();
            }

            @Override
            public IdempotencyStats stats() {
                return library.stats();
            }
        };
        server.close();
        server = servers().start(IdempotentRoute.custom("payment.charge", withoutDownstreamKeys)
                .documentation(Routes.DOCS).build(), app);

        HttpResponse<byte[]> first = server.send(server.postRequest(PATH, "client-a", "0001", BODY));
        HttpResponse<byte[]> retry = server.send(server.postRequest(PATH, "client-a", "0001", BODY));

        assertThat(List.of(first.statusCode(), retry.statusCode())).containsOnly(201);
        assertThat(app.keysSeen).as("the handler ran once, and found no downstream key").containsExactly((String) null);
        assertThat(retry.body()).isEqualTo(first.body());
    }

    /**
     * Charges a provider that deduplicates on the downstream key the filter hands over: a key it has
     * seen answers the earlier charge and makes none. Answers 503 once when told to, after it saw the key.
     */
    private static final class DeduplicatingProviderApp implements Application {

        private final Map<String, String> chargesByKey = new LinkedHashMap<>();
        final List<String> keysSeen = new ArrayList<>();
        volatile boolean failNext;

        synchronized Map<String, String> ledger() {
            return new LinkedHashMap<>(chargesByKey);
        }

        @Override
        public Answer post(String path, byte[] body, String key) {
            String charge;
            synchronized (this) {
                keysSeen.add(key);
                if (failNext) {
                    failNext = false;
                    return Answer.text(503, "the provider is down");
                }
                charge = chargesByKey.computeIfAbsent(key, k -> "ch_" + (chargesByKey.size() + 1));
            }
            return Answer.json(201, Map.of(), "{\"id\":\"" + charge + "\"}");
        }

        @Override
        public Answer get(String path) {
            return Answer.text(200, "charges=" + ledger().size());
        }
    }
}
