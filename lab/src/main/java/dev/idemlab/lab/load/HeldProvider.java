package dev.idemlab.lab.load;

import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The provider of a conflict run: while held, a charge waits inside it until released, so its
 * request keeps its key in flight. Thread-safe.
 */
final class HeldProvider implements PaymentProvider {

    private final FakePaymentProvider delegate;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final Semaphore inside = new Semaphore(0);

    HeldProvider(FakePaymentProvider delegate) {
        this.delegate = delegate;
    }

    /** From now on, charges wait; the warm-up's charges before it do not count as held. */
    void hold() {
        inside.drainPermits();
        gate = new CountDownLatch(1);
    }

    void release() {
        gate.countDown();
    }

    boolean awaitHolding(int charges, Duration timeout) throws InterruptedException {
        return inside.tryAcquire(charges, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public Charge charge(ChargeRequest request) {
        CountDownLatch current = gate;
        inside.release();
        try {
            current.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while held", e);
        }
        return delegate.charge(request);
    }

    @Override
    public List<Charge> ledger() {
        return delegate.ledger();
    }

    @Override
    public Optional<Charge> findCharge(String id) {
        return delegate.findCharge(id);
    }
}
