package dev.idemlab.provider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A payment provider that counts: every successful {@link #charge} appends {@code ch_N} to its
 * ledger, and the ledger is the ground truth every experiment is checked against.
 *
 * <p>Faults are planned, not random: {@link #failNextCalls(int)} makes the next calls time out
 * before anything is charged.
 *
 * <p>This class is thread-safe.
 */
public final class FakePaymentProvider {

    /** The post's provider takes 300 ms to charge a card. */
    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(300);

    private final Latency latency;
    private final ProviderObserver observer;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger plannedTimeouts = new AtomicInteger();
    private final List<Charge> ledger = new ArrayList<>();

    private FakePaymentProvider(Latency latency, ProviderObserver observer) {
        this.latency = latency;
        this.observer = observer;
    }

    /** A provider with the default latency and no observer. */
    public static FakePaymentProvider create() {
        return builder().build();
    }

    /** A builder; not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Charges a card: waits out the latency, then records the charge, unless the fault plan says
     * this call times out first.
     *
     * @param orderId the order being paid
     * @param amount the amount in minor units, positive
     * @param idempotencyKey the caller's key, passed downstream; may be {@code null}
     * @return the charge as recorded in the ledger
     * @throws ProviderTimeoutException when the fault plan fails this call; nothing is charged
     * @throws IllegalArgumentException when the amount is not positive
     */
    public Charge charge(String orderId, long amount, String idempotencyKey) {
        Objects.requireNonNull(orderId, "orderId");
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be positive: " + amount);
        }
        int callNumber = calls.incrementAndGet();
        observer.callStarted(callNumber, orderId, amount);
        try {
            latency.await(callNumber);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderTimeoutException(orderId);
        }
        if (takePlannedTimeout()) {
            observer.timedOut(callNumber, orderId);
            throw new ProviderTimeoutException(orderId);
        }
        Charge charge;
        synchronized (ledger) {
            charge = new Charge("ch_" + (ledger.size() + 1), orderId, amount, idempotencyKey);
            ledger.add(charge);
        }
        observer.charged(callNumber, charge);
        return charge;
    }

    /** Makes the next {@code count} calls time out before charging (in addition to any planned). */
    public void failNextCalls(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        plannedTimeouts.addAndGet(count);
    }

    /** A snapshot of the ledger, in charge order. */
    public List<Charge> ledger() {
        synchronized (ledger) {
            return List.copyOf(ledger);
        }
    }

    /** The ids of the ledger's charges, in order: {@code [ch_1, ch_2, ...]}. */
    public List<String> chargeIds() {
        return ledger().stream().map(Charge::id).toList();
    }

    /** How many charges the ledger holds. */
    public int chargeCount() {
        synchronized (ledger) {
            return ledger.size();
        }
    }

    /** How many calls reached the provider, charged or not. */
    public int callCount() {
        return calls.get();
    }

    private boolean takePlannedTimeout() {
        while (true) {
            int left = plannedTimeouts.get();
            if (left == 0) {
                return false;
            }
            if (plannedTimeouts.compareAndSet(left, left - 1)) {
                return true;
            }
        }
    }

    /** Builds a {@link FakePaymentProvider}. Not thread-safe. */
    public static final class Builder {

        private Latency latency = Latency.fixed(DEFAULT_LATENCY);
        private ProviderObserver observer = ProviderObserver.NONE;

        private Builder() { }

        /** A fixed latency per charge; must not be negative. */
        public Builder latency(Duration latency) {
            this.latency = Latency.fixed(Objects.requireNonNull(latency, "latency"));
            return this;
        }

        /** A custom latency, for instance a gate a test opens. */
        public Builder latency(Latency latency) {
            this.latency = Objects.requireNonNull(latency, "latency");
            return this;
        }

        /** Callbacks from inside the provider. */
        public Builder observer(ProviderObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        public FakePaymentProvider build() {
            return new FakePaymentProvider(latency, observer);
        }
    }
}
