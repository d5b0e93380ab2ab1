package dev.idemlab.lab.http;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 39, defect 4: the filter scoped two clients' key {@code 0001} apart, but the demo handed the
 * provider the client's raw key, so at a provider that deduplicates on it client B's charge was never
 * made: merged into A's (same order and amount) or refused, 502 (another amount). Two tenants (two key
 * prefixes on one Redis, one provider account) collided the same way. The demo and its Stripe route now
 * pass the request's downstream key, derived from the store's prefix, the client's scope and the key.
 * Each check reads the provider's ledger over real HTTP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DownstreamKeysNeverCollideTest {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private RedisBackend redis;

    @BeforeAll
    void startRedis() {
        redis = (RedisBackend) StoreBackends.open("redis", ProvisioningOptions.defaults());
    }

    @AfterAll
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static FakePaymentProvider deduplicatingProvider() {
        return FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
    }

    private static DemoServer demo(IdempotencyStore store, FakePaymentProvider provider) throws Exception {
        return DemoServer.start(store, LabPolicy.RAISE, IdempotencyConfig.ofDefaults(), provider,
                provider::failNextCalls, 0);
    }

    private HttpResponse<String> charge(DemoServer server, String client, long amount, String key) throws Exception {
        return http.send(ChargeRequest.of(server.uri(), client, "o-1", amount, key), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void twoClientsSendingKey0001BothGetTheirChargeMade() throws Exception {
        FakePaymentProvider provider = deduplicatingProvider();
        try (DemoServer server = demo(new InMemoryIdempotencyStore(), provider)) {
            HttpResponse<String> a = charge(server, "client-a", 10, "0001");
            HttpResponse<String> b = charge(server, "client-b", 10, "0001");
            HttpResponse<String> c = charge(server, "client-c", 20, "0001");

            assertThat(a.statusCode()).isEqualTo(201);
            assertThat(b.statusCode()).as("client B: %s", b.body()).isEqualTo(201);
            assertThat(c.statusCode()).as("client C, another amount: %s", c.body()).isEqualTo(201);
            assertThat(provider.ledger()).as("one charge per client").hasSize(3);
            assertThat(provider.ledger()).extracting(Charge::idempotencyKey).doesNotHaveDuplicates()
                    .noneMatch("0001"::equals);
            assertThat(b.body()).isNotEqualTo(a.body());
        }
    }

    @Test
    void aClientsRetryPassesTheSameDownstreamKey() throws Exception {
        FakePaymentProvider provider = deduplicatingProvider();
        try (DemoServer server = demo(new InMemoryIdempotencyStore(), provider)) {
            provider.chargeThenTimeOutNextCalls(1);
            HttpResponse<String> lost = charge(server, "client-a", 10, "0001");
            HttpResponse<String> retry = charge(server, "client-a", 10, "0001");

            assertThat(lost.statusCode()).as("charged, then the reply lost: not stored").isEqualTo(504);
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(provider.ledger()).as("the retry met the first attempt's charge at the provider").hasSize(1);
            assertThat(retry.body()).contains(provider.ledger().get(0).id());
        }
    }

    @Test
    void twoKeyPrefixesOnOneRedisBothGetTheirChargeMade() throws Exception {
        FakePaymentProvider provider = deduplicatingProvider();
        String run = UUID.randomUUID().toString();
        try (IdempotencyStore tenantA = tenantStore("tenant-a-" + run + ":");
             IdempotencyStore tenantB = tenantStore("tenant-b-" + run + ":");
             DemoServer a = demo(tenantA, provider);
             DemoServer b = demo(tenantB, provider)) {
            HttpResponse<String> first = charge(a, "client-a", 10, "0001");
            HttpResponse<String> second = charge(b, "client-a", 10, "0001");
            HttpResponse<String> retryA = charge(a, "client-a", 10, "0001");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(second.statusCode()).as("tenant B: %s", second.body()).isEqualTo(201);
            assertThat(provider.ledger()).as("one charge per tenant").hasSize(2);
            assertThat(second.body()).isNotEqualTo(first.body());
            assertThat(retryA.body()).as("tenant A's retry replays its own charge").isEqualTo(first.body());
        }
    }

    @Test
    void twoClientsOnTheStripeRouteSendingOneKeyBothGetTheirChargeMade() throws Exception {
        FakePaymentProvider provider = deduplicatingProvider();
        try (DemoServer server = demo(new InMemoryIdempotencyStore(), provider)) {
            HttpResponse<String> a = http.send(stripeCharge(server, "sk_test_a", "0001"), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> b = http.send(stripeCharge(server, "sk_test_b", "0001"), HttpResponse.BodyHandlers.ofString());

            assertThat(a.statusCode()).isEqualTo(200);
            assertThat(b.statusCode()).as("client B: %s", b.body()).isEqualTo(200);
            assertThat(provider.ledger()).hasSize(2);
            assertThat(provider.ledger()).extracting(Charge::idempotencyKey).doesNotHaveDuplicates();
        }
    }

    private IdempotencyStore tenantStore(String prefix) {
        return new RedisIdempotencyStore(RedisStoreConfig.custom().uri(redis.uri()).keyPrefix(prefix).build());
    }

    private static HttpRequest stripeCharge(DemoServer server, String client, String key) {
        return HttpRequest.newBuilder(URI.create(server.uri() + StripeChargesApi.PATH))
                .header("Authorization", "Bearer " + client)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("amount=1000&currency=usd&metadata%5Border_id%5D=o-7"))
                .build();
    }
}
