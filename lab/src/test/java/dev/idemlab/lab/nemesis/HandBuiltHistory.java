package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A nemesis history written by hand, call by call and fault by fault, for the checker's tests: times in
 * milliseconds since the run began, a 3 s lease unless told otherwise, charges numbered as they are made.
 * Not thread-safe.
 */
final class HandBuiltHistory {

    static final long LEASE_MILLIS = 3000;

    private final String store;
    private final List<CallRecord> calls = new ArrayList<>();
    private final List<FaultEvent> faults = new ArrayList<>();
    private final List<Charge> ledger = new ArrayList<>();
    private long fence;
    private Through through = Through.COORDINATOR;

    /** A history on {@code store} ({@code redis}, {@code postgres}, {@code memory}). */
    HandBuiltHistory(String store) {
        this.store = store;
    }

    /**
     * A call of {@code key} that reserved the key (a fence of its own), charged as its action began at
     * {@code actionAt} and answered {@code outcome} at {@code answeredAt}.
     */
    CallRecord holder(int key, long sentAt, long actionAt, long answeredAt, Outcome outcome) {
        return charging(key, sentAt, actionAt, answeredAt, outcome, ++fence);
    }

    /** A call of {@code key} that failed open (no reservation) and charged. */
    CallRecord failedOpen(int key, long sentAt, long actionAt, long answeredAt) {
        return charging(key, sentAt, actionAt, answeredAt, Outcome.FAILED_OPEN, IdempotencyContext.NO_FENCE);
    }

    /**
     * A call of {@code key} that reserved the key (a fence of its own), and whose action threw before it
     * charged, at {@code failedAt}: the key was released.
     */
    CallRecord holderThatFailed(int key, long sentAt, long actionAt, long failedAt) {
        CallRecord call = record(key);
        call.sent(ms(sentAt));
        call.actionStarted(ms(actionAt), ++fence);
        call.failed(ms(failedAt), "provider-timeout");
        return call;
    }

    /**
     * A call of {@code key} through the sample whose client gave up at {@code gaveUpAt}, while its request
     * went on, reserved and charged, its charge reaching the provider at {@code chargedAt} (the action's
     * start only bounded by it, as the sample's calls are dated).
     */
    CallRecord holderWhoseClientGaveUp(int key, long sentAt, long chargedAt, long gaveUpAt) {
        CallRecord call = record(key);
        call.sent(ms(sentAt));
        call.actionStartedBy(ms(chargedAt), true);
        charge(call, key);
        call.failed(ms(gaveUpAt), "client-gave-up");
        return call;
    }

    /** A call of {@code key} that failed open, and whose action threw before it charged, at {@code failedAt}. */
    CallRecord failedOpenAndThrew(int key, long sentAt, long actionAt, long failedAt) {
        CallRecord call = record(key);
        call.sent(ms(sentAt));
        call.actionStarted(ms(actionAt), IdempotencyContext.NO_FENCE);
        call.failed(ms(failedAt), "provider-timeout");
        return call;
    }

    /** A call of {@code key} that was answered with a replay of {@code charge} at {@code answeredAt}. */
    CallRecord replay(int key, long sentAt, long answeredAt, String charge) {
        CallRecord call = record(key);
        call.sent(ms(sentAt));
        call.answered(ms(answeredAt), charge, Outcome.REPLAYED);
        return call;
    }

    /** The layer the calls went through: {@link Through#COORDINATOR} unless told. */
    HandBuiltHistory through(Through layer) {
        this.through = layer;
        return this;
    }

    /** A fault of the store, injected from {@code from} to {@code to}. */
    HandBuiltHistory fault(FaultKind kind, long from, long to) {
        faults.add(new FaultEvent(kind, ms(from), ms(to), null));
        return this;
    }

    NemesisHistory build() {
        long end = calls.stream().mapToLong(CallRecord::answeredAt).max().orElse(0) + ms(1000);
        return new NemesisHistory(new NemesisSettings(7, Duration.ofSeconds(10), Duration.ofMillis(LEASE_MILLIS), false,
                Sabotage.NONE, through, Clients.BEARER, false), new ServerInfo(store, "test", Origin.BUNDLED, "127.0.0.1:0", "none"), calls, faults,
                ledger, end, NemesisHistory.sum(List.of()));
    }

    NemesisVerdict check() {
        return NemesisChecker.check(build());
    }

    private CallRecord charging(int key, long sentAt, long actionAt, long answeredAt, Outcome outcome, long fence) {
        CallRecord call = record(key);
        call.sent(ms(sentAt));
        call.actionStarted(ms(actionAt), fence);
        Charge charge = charge(call, key);
        call.answered(ms(answeredAt), charge.id(), outcome);
        return call;
    }

    /** The next charge of the ledger, for {@code key}, made by {@code call}'s action. */
    private Charge charge(CallRecord call, int key) {
        Charge charge = new Charge("ch_" + (ledger.size() + 1), LoadKeys.orderId(key), LoadKeys.amount(key), null);
        ledger.add(charge);
        call.charged(charge.id());
        return charge;
    }

    private CallRecord record(int key) {
        CallRecord call = new CallRecord(calls.size(), key, calls.size(), false, InFlightPolicy.WAIT,
                StoreFailureMode.FAIL_OPEN, TimeUnit.SECONDS.toNanos(60));
        calls.add(call);
        return call;
    }

    static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
