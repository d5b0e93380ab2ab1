package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 409 for a key whose first request is in flight says Retry-After from what is known (the holder's
 * age and the expected duration), never the whole lease: a charge that takes 0.3 s was answered
 * {@code Retry-After: 30} under the default 30 s lease. Over real HTTP, the first request held in the
 * application by a latch.
 */
class RetryAfterCountsDownTheExpectedDurationTest {

    private static final String PATH = "/orders/o-1/charge";
    private static final String BODY = "{\"amount\":10}";

    private final OrdersApp app = new OrdersApp();
    private ServerUnderTest server;

    /** The servers this rule runs on: the servlet filter in Jetty here; the WebFlux filter's suite overrides it. */
    ServerUnderTest.Servers servers() {
        return FilterServer.JETTY;
    }


    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aQuickChargeIsNotToldToWaitTheWholeLease() throws Exception {
        assertThat(retryAfterWhileHeld(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).build()))
                .isEqualTo(1);
    }

    @Test
    void aConfiguredExpectedDurationIsCountedDown() throws Exception {
        IdempotencyConfig config = IdempotencyConfig.custom().policy(InFlightPolicy.RAISE)
                .expectedDuration(Duration.ofSeconds(5)).build();
        assertThat(retryAfterWhileHeld(config)).isBetween(1L, 5L);
    }

    @Test
    void theHintIsNeverLaterThanTheLeaseEnds() throws Exception {
        IdempotencyConfig config = IdempotencyConfig.custom().policy(InFlightPolicy.RAISE)
                .lease(Duration.ofSeconds(3)).expectedDuration(Duration.ofSeconds(20)).build();
        assertThat(retryAfterWhileHeld(config)).isBetween(1L, 3L);
    }

    /** The Retry-After of a second request while the first is held in the application; one charge made. */
    private long retryAfterWhileHeld(IdempotencyConfig config) throws Exception {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
                .config(config).build();
        server = servers().start(IdempotentRoute.custom("payment.charge", coordinator)
                .documentation(Routes.DOCS).build(), app);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app.holdNext(entered, release);
        CompletableFuture<HttpResponse<byte[]>> first = server.sendAsync(server.postRequest(PATH, "client-a", "k1", BODY));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        HttpResponse<byte[]> second = server.post(PATH, "k1", BODY);
        release.countDown();
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(app.charges.get()).isEqualTo(1);
        return Long.parseLong(second.headers().firstValue("Retry-After").orElseThrow());
    }
}
