package dev.idemlab.lab.peers;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.peers.ChargeReceipt;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.Map;
import java.util.UUID;

/**
 * This project's coordinator as one more peer: the library's {@link IdempotencyCoordinator} under
 * WAIT or RAISE, or the lab's result cache under RUN, over the library's Redis store, in front of
 * the same provider and on the same Redis as every other peer. The call is the one docs/plain-api.md shows:
 * operation {@code payment.charge}, the client's key, a fingerprint of order id and amount, the key
 * passed on to the provider. The configuration is the library's defaults (30 s lease, fail open).
 *
 * <p>Thread-safe.
 */
final class LabCoordinatorPeer implements PeerLibrary {

    static final String OPERATION = "payment.charge";
    private static final ResultCodec<ChargeReceipt> RECEIPT = ResultCodec.json(ChargeReceipt.class);

    private final String name;
    private final String wiring;
    private final FakePaymentProvider provider;
    private final RedisIdempotencyStore store;
    private final IdempotencyCoordinator coordinator;

    private LabCoordinatorPeer(String name, String wiring, FakePaymentProvider provider, RedisIdempotencyStore store,
            IdempotencyCoordinator coordinator) {
        this.name = name;
        this.wiring = wiring;
        this.provider = provider;
        this.store = store;
        this.coordinator = coordinator;
    }

    /**
     * Opens the peer: a Redis store under a key prefix of its own, and the coordinator the factory
     * builds for {@code policy}.
     */
    static LabCoordinatorPeer open(String name, String wiring, LabPolicy policy, CoordinatorFactory coordinators,
            FakePaymentProvider provider, String redisUri) {
        if (redisUri == null) {
            throw new IllegalArgumentException(name + " needs a Redis: redis://host:port");
        }
        RedisIdempotencyStore store = new RedisIdempotencyStore(RedisStoreConfig.custom().uri(redisUri)
                .keyPrefix("idemlab:peers:" + UUID.randomUUID().toString().substring(0, 8) + ":").build());
        try {
            IdempotencyCoordinator coordinator = coordinators.create(store, policy, IdempotencyConfig.ofDefaults());
            return new LabCoordinatorPeer(name, wiring, provider, store, coordinator);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String version() {
        String version = IdempotencyCoordinator.class.getPackage().getImplementationVersion();
        return version != null ? version : "development build";
    }

    @Override
    public String wiring() {
        return wiring;
    }

    @Override
    public StoreKind storeKind() {
        return StoreKind.REDIS;
    }

    @Override
    public Object charge(String idempotencyKey, String orderId, long amount) {
        IdempotentCall call = IdempotentCall.of(OPERATION, idempotencyKey,
                Fingerprint.ofFields(Map.of("order_id", orderId, "amount", amount)));
        return coordinator.execute(call, RECEIPT,
                () -> ChargeReceipt.of(provider.charge(orderId, amount, idempotencyKey)));
    }

    @Override
    public void close() {
        store.close();
    }
}
