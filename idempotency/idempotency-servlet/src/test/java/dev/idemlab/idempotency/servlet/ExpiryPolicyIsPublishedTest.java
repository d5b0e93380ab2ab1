package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.servlet.headers.ExpiryPolicyHeader;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draft section 2.3, Idempotency Key Validity and Expiry: the route publishes how long a key is kept
 * and how long an in-flight lease lasts, in {@code Idempotency-Policy}, on the first answer and on its
 * replays, beside the replay marker; a refusal and an answer that is not stored (a 5xx) do not carry it.
 */
class ExpiryPolicyIsPublishedTest {

    private static final String PATH = "/orders/o-1/charge";
    private static final String BODY = "{\"amount\":10}";

    private final OrdersApp app = new OrdersApp();
    private ServerUnderTest server;

    /** The servers this rule runs on: the servlet filter in Jetty here; the WebFlux filter's suite overrides it. */
    ServerUnderTest.Servers servers() {
        return FilterServer.JETTY;
    }

    @BeforeEach
    void start() throws Exception {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
                .config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).ttl(Duration.ofHours(6)).lease(Duration.ofMillis(12_500)).build())
                .build();
        server = servers().start(IdempotentRoute.custom("payment.charge", coordinator)
                .documentation(Routes.DOCS).build(), app);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void theFirstAnswerAndItsReplayCarryTheKeysLifetimeAndTheLeaseInSeconds() throws Exception {
        HttpResponse<byte[]> first = server.post(PATH, "k1", BODY);
        HttpResponse<byte[]> replay = server.post(PATH, "k1", BODY);

        assertThat(first.headers().firstValue("Idempotency-Policy")).hasValue("ttl=21600, lease=13");
        assertThat(first.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
        assertThat(replay.headers().firstValue("Idempotency-Policy")).hasValue("ttl=21600, lease=13");
        assertThat(replay.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(ExpiryPolicyHeader.parse(replay.headers().firstValue(ExpiryPolicyHeader.NAME).orElseThrow()))
                .isEqualTo(new ExpiryPolicyHeader.Policy(Duration.ofHours(6), Duration.ofSeconds(13)));
    }

    @Test
    void anAnswerThatIsNotStoredDoesNotCarryThePolicy() throws Exception {
        app.failNextWith(503);
        HttpResponse<byte[]> unavailable = server.post(PATH, "k1", BODY);
        HttpResponse<byte[]> retry = server.post(PATH, "k1", BODY);

        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(unavailable.headers().firstValue("Idempotency-Policy")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotency-Policy")).isPresent();
    }

    @Test
    void aRefusalDoesNotCarryThePolicy() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app.holdNext(entered, release);
        CompletableFuture<HttpResponse<byte[]>> holder = CompletableFuture.supplyAsync(() -> {
            try {
                return server.post(PATH, "k1", BODY);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

        HttpResponse<byte[]> conflict = server.post(PATH, "k1", BODY);
        release.countDown();

        assertThat(conflict.statusCode()).isEqualTo(409);
        assertThat(conflict.headers().firstValue("Idempotency-Policy")).isEmpty();
        assertThat(holder.get(30, TimeUnit.SECONDS).headers().firstValue("Idempotency-Policy")).isPresent();
    }
}
