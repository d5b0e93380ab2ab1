package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder whose complete failed leaves the write to the background, and once stopped renewing as its
 * action returned: while the complete waited out a fault, the store's lease ended, and a retry ran the
 * action again (found by the nemesis on PostgreSQL, a frozen network while the result was being
 * stored). Now the renewals go on until the result is stored. Here the store refuses every complete
 * until the test lets them through, the heartbeat beats on the real timer (every 50 ms), and the
 * lease is far longer than the test, so only the renewals are watched, not the clock.
 */
class HoldersRenewUntilTheirResultIsStoredTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration BEAT = Duration.ofMillis(50);

    private final RaceStage stage = new RaceStage();
    private final CountDownLatch completesGetThrough = new CountDownLatch(1);

    @AfterEach
    void stop() {
        completesGetThrough.countDown();
        stage.openAll(4);
    }

    /** Refuses every complete until the test opens the way; counts renewals once the first complete was refused. */
    private final class RefusingCompletes extends ForwardingIdempotencyStore {
        final Semaphore renewalsAfterRefusal = new Semaphore(0);
        private volatile boolean refused;

        RefusingCompletes() {
            super(new InMemoryIdempotencyStore());
        }

        @Override
        public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
            if (completesGetThrough.getCount() > 0) {
                refused = true;
                throw new IdempotencyStoreException("test", namespace, Failure.UNREACHABLE, "connection refused", null);
            }
            return super.complete(namespace, token, fingerprint, result, ttl);
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            boolean held = super.renew(namespace, token, lease);
            if (refused) {
                renewalsAfterRefusal.release();
            }
            return held;
        }
    }

    @Test
    void aHolderWhoseCompleteIsLeftToTheBackgroundRenewsUntilItLands() throws Exception {
        RefusingCompletes store = new RefusingCompletes();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom().lease(LEASE).heartbeatInterval(BEAT).build()).build();
        IdempotentCall call = chargeCall("k1", 10);
        stage.openAll(1);

        IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> stage.provider.charge("order-42", 10, "k1"));
        assertThat(first.outcome()).as("the caller has its charge; the write is the background's").isEqualTo(Outcome.EXECUTED);
        assertThat(store.renewalsAfterRefusal.tryAcquire(3, 30, TimeUnit.SECONDS))
                .as("the holder renews while its result waits to be stored").isTrue();
        assertThat(store.lookup(call.namespace())).get().isInstanceOf(IdempotencyRecord.Pending.class);

        completesGetThrough.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> store.lookup(call.namespace()).orElse(null) instanceof IdempotencyRecord.Completed);
        IdempotentResult<Charge> retry = coordinator.call(call, CHARGE, () -> stage.provider.charge("order-42", 10, "k1"));
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(retry.value().id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isZero();
    }
}
