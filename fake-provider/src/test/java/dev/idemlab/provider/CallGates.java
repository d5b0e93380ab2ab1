package dev.idemlab.provider;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Stages calls with latches instead of timing: call number {@code n} waits inside the provider
 * until the test opens gate {@code n}, and the test learns when a call has entered the provider.
 * Thread-safe.
 */
public final class CallGates {

    /** How long a test waits for something that must happen before it calls it a failure. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);

    private final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final Semaphore entered = new Semaphore(0);

    /** The latency to build a provider with: each call waits for its gate. */
    public Latency latency() {
        return callNumber -> {
            if (!gate(callNumber).await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("gate " + callNumber + " was never opened");
            }
        };
    }

    /** The observer to build a provider with: it counts calls entering the provider. */
    public ProviderObserver observer() {
        return new ProviderObserver() {
            @Override
            public void callStarted(int callNumber, String orderId, long amount) {
                entered.release();
            }
        };
    }

    /** A provider builder with this stage's latency and observer. */
    public FakePaymentProvider.Builder provider() {
        return FakePaymentProvider.builder().latency(latency()).observer(observer());
    }

    /** Lets call number {@code callNumber} leave its latency. */
    public void open(int callNumber) {
        gate(callNumber).countDown();
    }

    /** Blocks until {@code count} more calls have entered the provider. */
    public void awaitEntered(int count) throws InterruptedException {
        if (!entered.tryAcquire(count, PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(count + " calls never entered the provider");
        }
    }

    private CountDownLatch gate(int callNumber) {
        return gates.computeIfAbsent(callNumber, n -> new CountDownLatch(1));
    }
}
