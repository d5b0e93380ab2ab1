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
    /** Renewals land in the store, and their replies are lost (a timeout). */
    private final AtomicBoolean repliesLost = new AtomicBoolean();
    private final Semaphore renewals = new Semaphore(0);
    private final Semaphore storageErrors = new Semaphore(0);
    private Heartbeat heartbeat;

    private final ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(memory) {
        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            renewals.release();
            if (repliesLost.get()) {
                super.renew(namespace, token, lease);
                throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                        "renew's reply lost", null);
            }
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

    /**
     * The lease ran out by the holder's clock while every renewal's reply was lost, but the renewals had
     * landed: once one gets through again the renewals count as getting through (a failed completion's
     * settle goes on), while the outcome still says the lease was lost. Found in review: the settle
     * asked the lost flag, which never clears, and gave up after one lease although the key was held.
     */
    @Test
    void renewalsGetThroughAgainAfterTheLeaseRanOutByTheHoldersClockWhileTheOutcomeStaysLost() throws Exception {
        memory.reserve(NAMESPACE, "t1", "f", LEASE);
        repliesLost.set(true);
        start("t1");
        for (int half = 0; half < 2; half++) {
            ticker.advance(LEASE.dividedBy(2));
            renewals.drainPermits();
            // The second renewal from now started after the advance, and landed in the store.
            assertThat(renewals.tryAcquire(3, 30, TimeUnit.SECONDS)).as("renewals after half " + half).isTrue();
        }
        assertThat(heartbeat.lost()).as("no reply for a whole lease").isTrue();
        assertThat(heartbeat.renewalsGetThrough()).isFalse();

        repliesLost.set(false);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(heartbeat::renewalsGetThrough);
        assertThat(heartbeat.leaseStillConfirmed()).as("the outcome still says lost").isFalse();
        assertThat(memory.lookup(NAMESPACE)).as("the reservation is still t1's").isPresent();
    }
}
