package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.FakeTicker;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One heartbeat on the real timer (a beat every 50 ms), with a fake ticker for the lease it last
 * confirmed: the store's word ends it at once, storage errors do not, and the lease running out by
 * the holder's own clock does.
 */
class HeartbeatTest {

    private static final String NAMESPACE = "payment.charge:k1";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration BEAT = Duration.ofMillis(50);

    private final FakeTicker ticker = new FakeTicker();
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(ticker);
    private final AtomicBoolean failing = new AtomicBoolean();
    private final Semaphore renewals = new Semaphore(0);
    private final Semaphore storageErrors = new Semaphore(0);
    private Heartbeat heartbeat;

    private final ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(memory) {
        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            renewals.release();
            if (failing.get()) {
                throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                        "renew timed out", null);
            }
            return super.renew(namespace, token, lease);
        }
    };

    @AfterEach
    void stop() {
        if (heartbeat != null) {
            heartbeat.stop();
        }
    }

    /** Starts the heartbeat of {@code token}'s reservation, confirmed by a reserve starting now. */
    private void start(String token) {
        Heartbeats shared = new Heartbeats(store, LEASE, BEAT, ticker, (e, first) -> storageErrors.release());
        heartbeat = new Heartbeat(NAMESPACE, token, ticker.read()) {
            @Override
            Heartbeats shared() {
                return shared;
            }
        };
        shared.start(heartbeat);
    }

    @Test
    void aRenewalTheStoreRefusesLosesTheLeaseAndEndsTheRenewals() throws Exception {
        memory.reserve(NAMESPACE, "someone-else", "f", LEASE);
        start("t1");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(heartbeat::lost);
        assertThat(renewals.availablePermits()).as("no renewal after the refusal").isEqualTo(1);
        assertThat(storageErrors.availablePermits()).isZero();
    }

    @Test
    void renewalsThatFailWithAStorageErrorAreCountedAndTriedAgainUntilOneGetsThrough() throws Exception {
        memory.reserve(NAMESPACE, "t1", "f", LEASE);
        failing.set(true);
        start("t1");
        assertThat(storageErrors.tryAcquire(3, 30, TimeUnit.SECONDS)).as("three failed renewals, each counted").isTrue();
        assertThat(heartbeat.lost()).isFalse();
        failing.set(false);
        renewals.drainPermits();
        assertThat(renewals.tryAcquire(2, 30, TimeUnit.SECONDS)).as("it renews on").isTrue();
        assertThat(heartbeat.lost()).isFalse();
    }

    @Test
    void theLeaseIsLostOnceTheOneLastConfirmedRanOutByTheHoldersClock() throws Exception {
        memory.reserve(NAMESPACE, "t1", "f", LEASE);
        failing.set(true);
        start("t1");
        assertThat(storageErrors.tryAcquire(2, 30, TimeUnit.SECONDS)).isTrue();
        ticker.advance(LEASE.minusMillis(1));
        assertThat(heartbeat.lost()).as("a millisecond of the lease left").isFalse();
        ticker.advance(Duration.ofMillis(1));
        assertThat(heartbeat.lost()).isTrue();
    }

    @Test
    void aSuccessfulRenewalMovesTheLeaseLastConfirmedForward() throws Exception {
        memory.reserve(NAMESPACE, "t1", "f", LEASE);
        start("t1");
        ticker.advance(LEASE.minusSeconds(1));
        renewals.drainPermits();
        // The second renewal from now started after the advance and confirmed the lease from there; the
        // third starting means the second has finished (the beats of one heartbeat never overlap).
        assertThat(renewals.tryAcquire(3, 30, TimeUnit.SECONDS)).isTrue();
        failing.set(true);
        ticker.advance(Duration.ofSeconds(2));
        assertThat(heartbeat.lost()).isFalse();
    }
}
