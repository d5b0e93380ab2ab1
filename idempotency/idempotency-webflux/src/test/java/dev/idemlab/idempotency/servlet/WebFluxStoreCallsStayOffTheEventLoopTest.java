package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux filter's promise beyond the draft's rules: the store's blocking calls (reserve,
 * complete, release) never run on a Netty event loop, where one slow store round trip would stall
 * every connection the loop serves. Each call records its thread; all must be the filter's own
 * bounded elastic threads. A body over the route's limit is refused with 413 before anything runs, and a
 * request the filter's executor turns away (its queue full) is answered 503 without running.
 */
class WebFluxStoreCallsStayOffTheEventLoopTest {

    private static final String PATH = "/orders/o-1/charge";
    private static final String BODY = "{\"amount\":10}";

    @Test
    void reserveCompleteAndReleaseRunOnTheFiltersOwnThreads() throws Exception {
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                threads.add("reserve on " + Thread.currentThread().getName());
                return super.reserve(namespace, token, fingerprint, lease);
            }

            @Override
            public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                    Duration ttl) {
                threads.add("complete on " + Thread.currentThread().getName());
                return super.complete(namespace, token, fingerprint, result, ttl);
            }

            @Override
            public boolean release(String namespace, String token) {
                threads.add("release on " + Thread.currentThread().getName());
                return super.release(namespace, token);
            }
        };
        OrdersApp app = new OrdersApp();
        try (ServerUnderTest server = WebFluxServer.WEBFLUX.start(Routes.charge(store, InFlightPolicy.RAISE).build(), app)) {
            assertThat(server.post(PATH, "k1", BODY).statusCode()).isEqualTo(201);
            assertThat(server.post(PATH, "k1", BODY).headers().firstValue("Idempotent-Replayed")).hasValue("true");
            app.failNextWith(503);
            assertThat(server.post(PATH, "k2", BODY).statusCode()).isEqualTo(503);
        }
        assertThat(threads).anyMatch(call -> call.startsWith("complete"))
                .anyMatch(call -> call.startsWith("release"))
                .filteredOn(call -> call.startsWith("reserve")).hasSize(3);
        assertThat(threads).allSatisfy(call -> assertThat(call).contains(" on idempotency-webflux-"));
    }

    @Test
    void aBodyOverTheRoutesLimitIs413AndNothingRuns() throws Exception {
        OrdersApp app = new OrdersApp();
        try (ServerUnderTest server = WebFluxServer.WEBFLUX.start(Routes.charge().maxBodyBytes(16).build(), app)) {
            HttpResponse<byte[]> refused = server.post(PATH, "k1", "{\"amount\":10,\"note\":\"more than sixteen\"}");
            assertThat(refused.statusCode()).isEqualTo(413);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(server.post(PATH, "k2", BODY).statusCode()).isEqualTo(201);
        }
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void aRequestTheFullExecutorTurnsAwayIs503AndNothingRuns() throws Exception {
        OrdersApp app = new OrdersApp();
        IdempotencyWebFilter filter = IdempotencyWebFilter.custom(Routes.charge().build()).paths("/orders/**")
                .executor(task -> {
                    throw new RejectedExecutionException("the queue is full");
                })
                .build();
        try (ServerUnderTest server = WebFluxServer.start(filter, app)) {
            HttpResponse<byte[]> refused = server.post(PATH, "k1", BODY);
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        }
        assertThat(app.charges.get()).isZero();
    }
}
