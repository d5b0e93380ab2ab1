package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server that answers "not now" (a Redis Cluster slot in migration, a cluster electing a master)
 * is neither an outage nor a stall that may have landed: the coordinator tries again within its
 * patience. Found on Redis Cluster: a reserve that met TRYAGAIN during resharding failed open while
 * the key's holder ran, and the provider charged twice.
 */
class BusyStoreTest {

    private final RaceStage stage = new RaceStage();
    private final FakeTicker ticker = new FakeTicker();

    private static IdempotencyStoreException busy(String namespace) {
        return new IdempotencyStoreException("cluster", namespace, Failure.BUSY,
                "TRYAGAIN Multiple keys request during rehashing of slot", null);
    }

    private Charge charge(IdempotencyCoordinator coordinator) {
        return coordinator.execute(chargeCall("k1", 10), CHARGE, () -> stage.provider.charge("order-42", 10, "k1"));
    }

    @Test
    void busyIsTransientAndNeverLanded() {
        IdempotencyStoreException e = busy("payment.charge:k1");
        assertThat(e.isTransient()).isTrue();
        assertThat(e.mayHaveLanded()).isFalse();
    }

    @Test
    void aReserveAndACompleteTheServerDidNotRunAreTriedAgainAndChargeOnce() {
        AtomicInteger busyReserves = new AtomicInteger(3);
        AtomicInteger busyCompletes = new AtomicInteger(2);
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                if (busyReserves.getAndDecrement() > 0) {
                    throw busy(namespace);
                }
                return super.reserve(namespace, token, fingerprint, lease);
            }

            @Override
            public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                    Duration ttl) {
                if (busyCompletes.getAndDecrement() > 0) {
                    throw busy(namespace);
                }
                return super.complete(namespace, token, fingerprint, result, ttl);
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        stage.openAll(2);

        String first = charge(coordinator).id();
        String replay = charge(coordinator).id();

        assertThat(replay).isEqualTo(first);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isEqualTo(1);
        assertThat(coordinator.stats().count(Outcome.REPLAYED)).isEqualTo(1);
        assertThat(coordinator.stats().totalStorageErrors()).isZero();
    }

    @Test
    void aReserveThatTimedOutAndThenFoundTheServerBusyIsStillSettledAsLanded() {
        AtomicInteger reserves = new AtomicInteger();
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                if (reserves.getAndIncrement() == 0) {
                    super.reserve(namespace, token, fingerprint, lease);
                    throw new IdempotencyStoreException("cluster", namespace, Failure.TIMEOUT, "reply timed out", null);
                }
                // Each "not now" costs the patience a second, so that it runs out after two of them.
                ticker.advance(Duration.ofSeconds(1));
                throw busy(namespace);
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        stage.openAll(2);

        IdempotentResult<Charge> first = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));

        // The first try's marker landed: it is completed in the background, so the client's retry replays.
        assertThat(first.outcome()).isEqualTo(Outcome.FAILED_OPEN);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                store.lookup(chargeCall("k1", 10).namespace()).orElse(null)
                        instanceof dev.idemlab.idempotency.spi.IdempotencyRecord.Completed);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }
}
