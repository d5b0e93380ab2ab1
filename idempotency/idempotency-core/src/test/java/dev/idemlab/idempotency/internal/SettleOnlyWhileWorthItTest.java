package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.FakeTicker;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A background settle past its first bound goes on only while what it protects is still worth it (for
 * a failed completion: a lease its renewals keep confirming). Found in review: a completion settled for
 * ten leases kept trying, and renewing, through a total outage, a settle task and renewals per key for
 * five minutes at the default lease. Time is a fake ticker that only the test moves; the tries run on
 * the real timer, each one failing as an unreachable server.
 */
class SettleOnlyWhileWorthItTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);
    private static final Duration AT_MOST = WITHIN.multipliedBy(10);

    private final FakeTicker ticker = new FakeTicker();
    private final StoreCalls calls = new StoreCalls(ticker, Duration.ofSeconds(2));
    private final Semaphore tries = new Semaphore(0);
    private final CountDownLatch gaveUp = new CountDownLatch(1);
    private final BooleanSupplier failingCall = () -> {
        tries.release();
        throw new IdempotencyStoreException("flaky", "payment.charge:k1", IdempotencyStoreException.Failure.UNREACHABLE,
                "complete refused", null);
    };

    private void awaitATryAfterNow() throws InterruptedException {
        tries.drainPermits();
        assertThat(tries.tryAcquire(1, 30, TimeUnit.SECONDS)).as("another try").isTrue();
    }

    @Test
    void pastTheFirstBoundItGoesOnWhileWorthItAndStopsOnceNot() throws Exception {
        AtomicBoolean worthIt = new AtomicBoolean(true);
        calls.settleLater("completing", WITHIN, AT_MOST, worthIt::get, failingCall, gaveUp::countDown);
        awaitATryAfterNow();

        ticker.advance(WITHIN.multipliedBy(3));
        awaitATryAfterNow();
        awaitATryAfterNow();
        assertThat(gaveUp.getCount()).as("still settling three bounds in, while worth it").isEqualTo(1);

        worthIt.set(false);
        assertThat(gaveUp.await(30, TimeUnit.SECONDS)).as("gave up once no longer worth it").isTrue();
    }

    @Test
    void itNeverGoesPastItsCeiling() throws Exception {
        calls.settleLater("completing", WITHIN, AT_MOST, () -> true, failingCall, gaveUp::countDown);
        awaitATryAfterNow();

        ticker.advance(AT_MOST);
        assertThat(gaveUp.await(30, TimeUnit.SECONDS)).as("gave up at the ceiling").isTrue();
    }

    @Test
    void withinTheFirstBoundItIsNotAskedWhetherWorthIt() throws Exception {
        AtomicBoolean asked = new AtomicBoolean();
        calls.settleLater("completing", WITHIN, AT_MOST, () -> {
            asked.set(true);
            return false;
        }, failingCall, gaveUp::countDown);
        awaitATryAfterNow();
        awaitATryAfterNow();
        assertThat(asked).isFalse();
        assertThat(gaveUp.getCount()).isEqualTo(1);

        ticker.advance(WITHIN);
        assertThat(gaveUp.await(30, TimeUnit.SECONDS)).as("gave up after the first bound").isTrue();
    }
}
