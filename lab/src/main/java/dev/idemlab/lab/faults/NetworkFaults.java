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
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import java.io.IOException;
import java.net.ServerSocket;
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
        try (Proxy proxy = Proxy.to(((RedisBackend) rig.backend()).uri());
             RedisIdempotencyStore throughProxy = proxy.store()) {
            java.util.concurrent.atomic.AtomicBoolean reset = new java.util.concurrent.atomic.AtomicBoolean();
            IdempotencyStore resetting = new ForwardingIdempotencyStore(throughProxy) {
                @Override
                public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                        Duration ttl) {
                    if (reset.compareAndSet(false, true)) {
                        proxy.crusher.closeAllPairs(); // once: the first completion write meets a reset connection
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
        try (Proxy proxy = Proxy.to(((RedisBackend) rig.backend()).uri());
             RedisIdempotencyStore throughProxy = proxy.store()) {
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = rig.coordinator(throughProxy, IdempotencyConfig.ofDefaults());
            throughProxy.lookup("payment.charge:warm-up"); // the proxied connection is open
            IdempotentCall call = call(key(), 10);
            proxy.crusher.freeze();
            Thread thaw = new Thread(() -> {
                ConcurrencyFaults.sleep(Duration.ofMillis(1500));
                proxy.crusher.unfreeze();
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

    /**
     * A NetCrusher TCP proxy on 127.0.0.1 in front of a Redis, and a store that connects through it;
     * {@link #dropReplies} makes it swallow what the server sends back (a lost reply: the command
     * still reaches the server), for as long as it is set.
     */
    static final class Proxy implements AutoCloseable {
        final NioReactor reactor;
        final TcpCrusher crusher;
        final int port;
        final java.util.concurrent.atomic.AtomicBoolean dropReplies;

        private Proxy(NioReactor reactor, TcpCrusher crusher, int port,
                      java.util.concurrent.atomic.AtomicBoolean dropReplies) {
            this.reactor = reactor;
            this.crusher = crusher;
            this.port = port;
            this.dropReplies = dropReplies;
        }

        static Proxy to(String redisUri) throws IOException {
            URI target = URI.create(redisUri);
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            NioReactor reactor = new NioReactor();
            java.util.concurrent.atomic.AtomicBoolean dropReplies = new java.util.concurrent.atomic.AtomicBoolean();
            try {
                // Incoming is what the server sends back to the client: emptied, those bytes never arrive.
                TcpCrusher crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                        .withBindAddress("127.0.0.1", port)
                        .withConnectAddress(target.getHost(), target.getPort())
                        .withIncomingTransformFilterFactory(client -> buffer -> {
                            if (dropReplies.get()) {
                                buffer.position(buffer.limit());
                            }
                        })
                        .buildAndOpen();
                return new Proxy(reactor, crusher, port, dropReplies);
            } catch (RuntimeException e) {
                reactor.close();
                throw e;
            }
        }

        RedisIdempotencyStore store() {
            return new RedisIdempotencyStore(RedisStoreConfig.custom().uri("redis://127.0.0.1:" + port)
                    .keyPrefix("idemlab:proxied:" + UUID.randomUUID().toString().substring(0, 8) + ":").build());
        }

        @Override
        public void close() {
            crusher.close();
            reactor.close();
        }
    }
}
