package dev.idemlab.provider;

import dev.idemlab.provider.FaultPlan.Fault;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A payment provider that counts: every successful {@link #charge} appends {@code ch_N} to its
 * ledger, and the ledger is the ground truth every experiment is checked against.
 *
 * <p>One call goes: arrival (the fence check, when on), the latency, the fault plan, then the
 * charge (the key lookup, when deduplicating, and the ledger append, as one step).
 *
 * <p>Faults are planned, not random: {@link #failNextCalls(int)} makes the next calls time out
 * before anything is charged, {@link #chargeThenTimeOutNextCalls(int)} makes them charge and then
 * time out. A planned fault is taken by the next call that has waited out its latency.
 *
 * <p>Options real providers have, both off by default: {@linkplain Builder#deduplicateOnKey
 * deduplication on the downstream key} and a {@linkplain Builder#checkFences fence check}.
 *
 * <p>This class is thread-safe.
 */
public final class FakePaymentProvider implements PaymentProvider {

    /** The post's provider takes 300 ms to charge a card. */
    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(300);

    private final Latency latency;
    private final ProviderObserver observer;
    private final boolean checkFences;
    private final AtomicInteger calls = new AtomicInteger();
    private final FaultPlan faults = new FaultPlan();
    private final Fences fences = new Fences();
    private final ChargeBook book;

    private FakePaymentProvider(Builder builder) {
        this.latency = builder.latency;
        this.observer = builder.observer;
        this.checkFences = builder.checkFences;
        this.book = new ChargeBook(builder.deduplicateOnKey);
    }

    /** A provider with the default latency, no observer and no options. */
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
     * @throws ProviderTimeoutException when the fault plan fails this call
     * @throws ProviderKeyReuseException when deduplicating and the key names another charge
     * @throws NullPointerException when the order id is {@code null}
     * @throws IllegalArgumentException when the amount is not positive
     */
    @Override
    public Charge charge(String orderId, long amount, String idempotencyKey) {
        return charge(new ChargeRequest(orderId, amount, idempotencyKey, null));
    }

    /**
     * Charges a card as {@link #chargeOrReplay(ChargeRequest)} does.
     *
     * @param request what to charge
     * @return the charge as recorded in the ledger
     * @throws ProviderTimeoutException when the fault plan fails this call
     * @throws ProviderKeyReuseException when deduplicating and the key names another charge
     * @throws StaleFenceException when checking fences and the request's fence is stale
     */
    @Override
    public Charge charge(ChargeRequest request) {
        return chargeOrReplay(request).charge();
    }

    /**
     * Charges a card and says whether the charge was made by this call or replayed.
     *
     * <p>With {@code checkFences}, a request carrying a fence is checked and recorded when it
     * arrives, before the latency: see {@link Builder#checkFences(boolean)}. With
     * {@code deduplicateOnKey}, a keyed request is deduplicated when it reaches its charge, after
     * the latency, in the same step that would append to the ledger: see
     * {@link Builder#deduplicateOnKey(boolean)}.
     *
     * @param request what to charge
     * @return the charge, and whether it was replayed
     * @throws ProviderTimeoutException when the fault plan fails this call, before charging or
     *         after; or when the charging thread is interrupted (nothing charged)
     * @throws ProviderKeyReuseException when deduplicating and the key names a charge for another
     *         order or amount; nothing is charged
     * @throws StaleFenceException when checking fences and a higher fence was seen for the
     *         request's fence key; nothing is charged
     */
    public ChargeResult chargeOrReplay(ChargeRequest request) {
        Objects.requireNonNull(request, "request");
        int callNumber = calls.incrementAndGet();
        if (checkFences && request.fence() != null) {
            admitFence(callNumber, request);
        }
        observer.callStarted(callNumber, request.orderId(), request.amount());
        awaitLatency(callNumber, request.orderId());
        Fault fault = faults.take();
        if (fault == Fault.TIME_OUT_BEFORE_CHARGING) {
            observer.timedOut(callNumber, request.orderId());
            throw new ProviderTimeoutException(request.orderId());
        }
        ChargeResult result = record(callNumber, request);
        if (fault == Fault.CHARGE_THEN_TIME_OUT) {
            observer.replyLost(callNumber, result.charge());
            throw ProviderTimeoutException.replyLost(request.orderId());
        }
        return result;
    }

    private void admitFence(int callNumber, ChargeRequest request) {
        try {
            fences.admit(request.fenceKey(), request.fence());
        } catch (StaleFenceException e) {
            observer.callStarted(callNumber, request.orderId(), request.amount());
            observer.refused(callNumber, e);
            throw e;
        }
    }

    private void awaitLatency(int callNumber, String orderId) {
        try {
            latency.await(callNumber);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderTimeoutException(orderId);
        }
    }

    private ChargeResult record(int callNumber, ChargeRequest request) {
        ChargeResult result;
        try {
            result = book.chargeOrReplay(request);
        } catch (ProviderKeyReuseException e) {
            observer.refused(callNumber, e);
            throw e;
        }
        if (result.replayed()) {
            observer.replayed(callNumber, result.charge());
        } else {
            observer.charged(callNumber, result.charge());
        }
        return result;
    }

    /**
     * Makes the next {@code count} calls time out before charging, after any faults already
     * planned.
     *
     * @throws IllegalArgumentException when the count is negative
     */
    public void failNextCalls(int count) {
        faults.plan(Fault.TIME_OUT_BEFORE_CHARGING, count);
    }

    /**
     * Makes the next {@code count} calls charge (or replay) and then time out, after any faults
     * already planned: the ambiguous case where the effect happened but the reply was lost.
     *
     * @throws IllegalArgumentException when the count is negative
     */
    public void chargeThenTimeOutNextCalls(int count) {
        faults.plan(Fault.CHARGE_THEN_TIME_OUT, count);
    }

    /** A snapshot of the ledger, in charge order. */
    @Override
    public List<Charge> ledger() {
        return book.snapshot();
    }

    /** The ids of the ledger's charges, in order: {@code [ch_1, ch_2, ...]}. */
    @Override
    public List<String> chargeIds() {
        return ledger().stream().map(Charge::id).toList();
    }

    /** How many charges the ledger holds. */
    @Override
    public int chargeCount() {
        return book.size();
    }

    @Override
    public Optional<Charge> findCharge(String id) {
        return book.find(Objects.requireNonNull(id, "id"));
    }

    /**
     * The charges requested with {@code idempotencyKey}, oldest first, whether the provider deduplicates
     * or not; a call still inside its latency has not charged yet and is not among them.
     */
    @Override
    public List<Charge> chargesWithKey(String idempotencyKey) {
        return book.withKey(Objects.requireNonNull(idempotencyKey, "idempotencyKey"));
    }

    /** How many calls reached the provider: charged, replayed, refused or timed out. */
    public int callCount() {
        return calls.get();
    }

    /** Builds a {@link FakePaymentProvider}. Not thread-safe. */
    public static final class Builder {

        private Latency latency = Latency.fixed(DEFAULT_LATENCY);
        private ProviderObserver observer = ProviderObserver.NONE;
        private boolean deduplicateOnKey;
        private boolean checkFences;

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

        /**
         * Deduplicates on the downstream idempotency key, as real providers do: a charge whose
         * key the provider already charged, for the same order and amount, returns that charge
         * and adds no ledger entry; for another order or amount it is refused with
         * {@link ProviderKeyReuseException}. Calls without a key are never deduplicated.
         *
         * <p>The key is looked up when a call reaches its charge, in the same step that appends
         * to the ledger, so identical keyed calls in flight together end in one ledger entry and
         * all get the same charge. A call that times out before charging claims nothing, so its
         * retry charges. Off by default.
         */
        public Builder deduplicateOnKey(boolean on) {
            this.deduplicateOnKey = on;
            return this;
        }

        /**
         * Checks fences: a charge carrying a fencing number lower than the highest seen for its
         * {@linkplain ChargeRequest#fenceKey() fence key} is refused with
         * {@link StaleFenceException} and nothing is charged; an equal or higher one is accepted.
         * Charges without a fence are not checked. Off by default.
         *
         * <p>A fence is checked and recorded in one step when the call arrives, before its
         * latency, as a fenced resource does. Recording at charge time instead would let a stale
         * holder that arrives while the new holder is inside the provider pass the check and
         * charge too. The price: a call already admitted is not stopped by a higher fence that
         * arrives after it, and a fence is recorded even when its call then times out.
         */
        public Builder checkFences(boolean on) {
            this.checkFences = on;
            return this;
        }

        public FakePaymentProvider build() {
            return new FakePaymentProvider(this);
        }
    }
}
