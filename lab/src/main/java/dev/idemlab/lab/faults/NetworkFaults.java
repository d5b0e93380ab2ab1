package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static dev.idemlab.lab.faults.ConcurrencyFaults.awaitTrue;
import static dev.idemlab.lab.faults.FaultCase.Outcome.of;
import static dev.idemlab.lab.faults.FaultRig.CHARGE;
import static dev.idemlab.lab.faults.FaultRig.call;
import static dev.idemlab.lab.faults.FaultRig.key;

/**
 * Faults of the network between the coordinator and Redis, injected with a TCP proxy (NetCrusher) the
 * store connects through: a connection reset as the completion write goes out (case 13), and a
 * frozen connection during reserve (case 11 by TCP instead of by the server).
 */
final class NetworkFaults {

    private static final List<String> REDIS = List.of("redis");

    private NetworkFaults() { }

    static List<FaultCase> all() {
        return List.of(
                new Case(13, "reset during the completion write", "NetCrusher closes every proxied connection as "
                        + "the complete goes out", "the client still gets its charge; the duplicate risk is counted "
                        + "and the record lands once the store answers: the retry replays", REDIS,
                        NetworkFaults::resetDuringComplete),
                new Case(17, "a frozen connection during reserve", "NetCrusher freezes the proxied connection for "
                        + "1.5 s while the reserve is in flight, default store patience",
                        "the stall is waited out through the reconnection: one charge", REDIS,
                        NetworkFaults::frozenDuringReserve));
    }

    private static FaultCase.Outcome resetDuringComplete(FaultRig rig) throws Exception {
        try (TcpProxy proxy = proxyTo(rig);
             RedisIdempotencyStore throughProxy = storeThrough(proxy)) {
            java.util.concurrent.atomic.AtomicBoolean reset = new java.util.concurrent.atomic.AtomicBoolean();
            IdempotencyStore resetting = new ForwardingIdempotencyStore(throughProxy) {
                @Override
                public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                        Duration ttl) {
                    if (reset.compareAndSet(false, true)) {
                        proxy.reset(); // once: the first completion write meets a reset connection
                    }
                    return super.complete(namespace, token, fingerprint, result, ttl);
                }
            };
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = rig.coordinator(resetting,
                    IdempotencyConfig.custom().storePatience(Duration.ZERO).build());
            IdempotentCall call = call(key(), 10);
            IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            boolean landed = awaitTrue(() -> lookupQuietly(throughProxy, call) instanceof Completed);
            IdempotentResult<Charge> retry = rig.coordinator(throughProxy, IdempotencyConfig.ofDefaults())
                    .call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            long completeErrors = coordinator.stats().storageErrors().get(StorePhase.COMPLETE);
            boolean holds = first.value().id().equals("ch_1") && landed && provider.chargeIds().equals(List.of("ch_1"))
                    && (completeErrors == 0 || coordinator.stats().duplicateRisk() == completeErrors);
            return of(holds, "first " + first.outcome() + " " + first.value().id() + ", complete errors "
                    + completeErrors + ", duplicate risk " + coordinator.stats().duplicateRisk() + ", record landed: "
                    + landed + ", retry " + retry.outcome() + "; ledger " + provider.chargeIds());
        }
    }

    private static FaultCase.Outcome frozenDuringReserve(FaultRig rig) throws Exception {
        try (TcpProxy proxy = proxyTo(rig);
             RedisIdempotencyStore throughProxy = storeThrough(proxy)) {
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = rig.coordinator(throughProxy, IdempotencyConfig.ofDefaults());
            throughProxy.lookup("payment.charge:warm-up"); // the proxied connection is open
            IdempotentCall call = call(key(), 10);
            proxy.freeze();
            Thread thaw = new Thread(() -> {
                ConcurrencyFaults.sleep(Duration.ofMillis(1500));
                proxy.unfreeze();
            }, "thaw");
            thaw.start();
            IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            thaw.join();
            IdempotentResult<Charge> retry = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            boolean holds = provider.chargeIds().equals(List.of("ch_1"));
            return of(holds, "first " + first.outcome() + ", retry " + retry.outcome() + ", storage errors "
                    + coordinator.stats().totalStorageErrors() + "; ledger " + provider.chargeIds());
        }
    }

    private static Object lookupQuietly(IdempotencyStore store, IdempotentCall call) {
        try {
            return store.lookup(call.namespace()).orElse(null);
        } catch (RuntimeException notYet) {
            return null;
        }
    }

    private static TcpProxy proxyTo(FaultRig rig) throws IOException {
        return TcpProxy.to(URI.create(((RedisBackend) rig.backend()).uri()));
    }

    private static RedisIdempotencyStore storeThrough(TcpProxy proxy) {
        return new RedisIdempotencyStore(RedisStoreConfig.custom().uri("redis://127.0.0.1:" + proxy.port())
                .keyPrefix("idemlab:proxied:" + UUID.randomUUID().toString().substring(0, 8) + ":").build());
    }
}
