package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The coordinator on a real Redis: lost replies, and a server that has gone away. */
class RedisCoordinatorTest {

    private static final ResultCodec<String> CODEC = ResultCodec.json(String.class);

    private static final int DEAD_CALLS = 5;

    private static RedisBackend backend;

    @BeforeAll
    static void startServer() {
        backend = RedisBackend.open(ProvisioningOptions.defaults());
    }

    @AfterAll
    static void stopServer() {
        backend.close();
    }

    @ParameterizedTest
    @EnumSource(value = InFlightPolicy.class, names = {"WAIT", "RAISE"})
    void anOwnerWhoseReserveReplyWasLostRunsTheActionInsteadOfWaitingOnItself(InFlightPolicy policy) {
        try (IdempotencyStore store = new LostFirstReserveReply(backend.openStore())) {
            // A short wait, so that an owner wrongly waiting on its own marker fails as in-progress.
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.custom().policy(policy).waitTimeout(Duration.ofMillis(300)).build())
                    .build();
            AtomicInteger charges = new AtomicInteger();

            IdempotentResult<String> result = coordinator.call(call(), CODEC, () -> "ch_" + charges.incrementAndGet());

            assertThat(result).isEqualTo(new IdempotentResult<>("ch_1", Outcome.EXECUTED));
            assertThat(charges).hasValue(1);
        }
    }

    @Test
    void aDeadServerFailsOpenFastRunningTheActionAndCountingAReserveError() {
        try (StoreOutage outage = backend.openOutage(); IdempotencyStore healthy = backend.openStore()) {
            System.out.println("outage: " + outage.how());
            // One call on a live server first, so that loading the coordinator's classes is not timed.
            coordinator(healthy, StoreFailureMode.FAIL_OPEN).call(call(), CODEC, () -> "warm-up");
            IdempotencyCoordinator coordinator = coordinator(outage.store(), StoreFailureMode.FAIL_OPEN);
            AtomicInteger charges = new AtomicInteger();

            for (int i = 1; i <= DEAD_CALLS; i++) {
                IdempotentCall call = call();
                long start = System.nanoTime();
                IdempotentResult<String> result = coordinator.call(call, CODEC, () -> "ch_" + charges.incrementAndGet());
                printElapsed("fail open, call " + i, start);
                assertThat(result).isEqualTo(new IdempotentResult<>("ch_" + i, Outcome.FAILED_OPEN));
            }

            assertThat(charges).hasValue(DEAD_CALLS);
            assertThat(coordinator.stats().storageErrors()).containsEntry(StorePhase.RESERVE, (long) DEAD_CALLS);
            assertThat(coordinator.stats().count(Outcome.FAILED_OPEN)).isEqualTo(DEAD_CALLS);
        }
    }

    @Test
    void aDeadServerFailsClosedWithoutRunningTheAction() {
        try (StoreOutage outage = backend.openOutage()) {
            IdempotencyCoordinator coordinator = coordinator(outage.store(), StoreFailureMode.FAIL_CLOSED);
            AtomicInteger charges = new AtomicInteger();

            IdempotentCall call = call();
            long start = System.nanoTime();
            assertThatThrownBy(() -> coordinator.call(call, CODEC, () -> "ch_" + charges.incrementAndGet()))
                    .isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class,
                            e -> assertThat(e.phase()).isEqualTo(StorePhase.RESERVE));
            printElapsed("fail closed", start);

            assertThat(charges).hasValue(0);
            assertThat(coordinator.stats().storageErrors()).containsEntry(StorePhase.RESERVE, 1L);
        }
    }

    /** Printed for the record, never asserted: timing belongs in results, not in tests. */
    private static void printElapsed(String what, long startNanos) {
        long micros = (System.nanoTime() - startNanos) / 1_000;
        System.out.printf("dead-server call, %s: %d.%03d ms%n", what, micros / 1000, micros % 1000);
    }

    private static IdempotencyCoordinator coordinator(IdempotencyStore store, StoreFailureMode mode) {
        return IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom().storeFailureMode(mode).build())
                .build();
    }

    private static IdempotentCall call() {
        return IdempotentCall.of("payment.charge", UUID.randomUUID().toString(),
                Fingerprint.ofFields(Map.of("order_id", "o-1", "amount", 10)));
    }

    /**
     * A real store whose first reserve lands on the server but whose reply is lost, so the client
     * sends the same reserve again (as a timeout-and-retry, or a client's replay on reconnect, does)
     * and gets the answer to the second one.
     */
    private static final class LostFirstReserveReply implements IdempotencyStore {

        private final IdempotencyStore delegate;
        private final AtomicInteger reserves = new AtomicInteger();

        LostFirstReserveReply(IdempotencyStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
            if (reserves.getAndIncrement() == 0) {
                delegate.reserve(namespace, token, fingerprint, lease); // landed; its reply never arrived
            }
            return delegate.reserve(namespace, token, fingerprint, lease);
        }

        @Override
        public boolean complete(String namespace, String token, StoredResult result, Duration ttl) {
            return delegate.complete(namespace, token, result, ttl);
        }

        @Override
        public boolean release(String namespace, String token) {
            return delegate.release(namespace, token);
        }

        @Override
        public Optional<IdempotencyRecord> lookup(String namespace) {
            return delegate.lookup(namespace);
        }

        @Override
        public Optional<IdempotencyRecord> putIfAbsent(String namespace, String fingerprint, StoredResult result,
                                                       Duration ttl) {
            return delegate.putIfAbsent(namespace, fingerprint, result, ttl);
        }

        @Override
        public StoreDescription describe() {
            return delegate.describe();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
