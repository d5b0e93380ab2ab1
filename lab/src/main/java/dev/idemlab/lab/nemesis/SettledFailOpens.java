package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;

import java.util.ArrayList;
import java.util.List;

/**
 * The contract's "a reservation that may have landed is settled or expires, never left to charge again",
 * where the history shows one that landed. A call whose reserve failed (timed out) and which then failed
 * open charged without a reservation; if that reserve did land ({@link LandedReserves} saw a reservation
 * under the call's token), the coordinator must complete that marker with the call's result once the
 * store answers, and every call after replays that charge. So when the store was calm long enough for
 * that settle ({@link #SETTLE_CALM}) after the call answered and before the marker could expire, no call
 * sent after the marker was seen can have reserved the key and charged again, short of a fault that
 * breaks a promise of the store (a restart from a snapshot) in between. A call that did made a charge
 * nothing explains: the marker was released, or left to expire.
 *
 * <p>The settle goes on trying for a lease after the action, and a complete writes where the key is
 * free, so a calm that comes only after the marker could have expired still settles it, provided nobody
 * took the free key first: where no other call of the key was out between the marker's possible end and
 * the calm's (none could have reserved it, nor left a marker of its own), every call sent after that
 * calm must replay too. This is the case on PostgreSQL, whose socket timeout is the whole patience: the
 * marker of a reply-less reserve lands as the call begins, and the outage that made it fail open lasts
 * past the marker's end more often than not.
 *
 * <p>On every store that can fail (the in-memory store's calls cannot): on a standalone Redis the settle's
 * complete reaches the server after the reserve it settles (one connection, in order); over a pool
 * (PostgreSQL) or a cluster a held-up reserve can land after the complete, but a complete writes where
 * the key is free, so the late reserve finds the result and leaves no marker (a test on PostgreSQL,
 * {@code LateLandingReserveFindsTheSettledResultTest}, shows it). Stateless.
 */
final class SettledFailOpens {

    /**
     * How long a calm must last for a settle to get through in it: a try that was in flight as the calm
     * began has ended by then (calms start a recovery after a fault), the next comes within the settle's
     * longest pause (250 ms), plus its round trip and a late timer on a busy machine.
     */
    static final long SETTLE_CALM = LeaseLoss.RENEWAL_CALM;

    private SettledFailOpens() { }

    /** The violations on {@code key}: a call that reserved and charged after a settled fail-open's marker was seen. */
    static List<Violation> check(NemesisHistory history, int key, List<CallRecord> calls) {
        List<Violation> violations = new ArrayList<>();
        if ("memory".equals(history.server().store())) {
            return violations;
        }
        for (CallRecord settled : calls) {
            long calm = settleCalm(history, settled, calls);
            if (calm == Long.MIN_VALUE) {
                continue;
            }
            // Settled while the marker held: every call sent after it was seen replays; else those sent after the calm.
            long settledBy = calm + SETTLE_CALM;
            long heldFrom = settledBy <= settled.reserveLandedUntil() - LeaseLoss.TICK ? settled.reserveSeenAt()
                    : Math.max(settled.reserveSeenAt(), settledBy);
            for (CallRecord later : calls) {
                if (later != settled && !later.child() && later.fence() > 0 && later.charged() != null
                        && later.sentAt() >= heldFrom
                        && !promiseBroken(history, settled.reserveSeenAt(), later.actionStartedAt())) {
                    violations.add(new Violation("charge-after-settled-fail-open", key, "call " + later.id
                            + " (sent at " + NemesisChecker.millis(later.sentAt()) + ") reserved the key (fence "
                            + later.fence() + ") and charged " + later.charged() + " at "
                            + NemesisChecker.millis(later.actionStartedAt()) + ", after call " + settled.id
                            + " failed open (charged " + settled.charged() + ") on a reserve seen landed at "
                            + NemesisChecker.millis(settled.reserveSeenAt()) + ", its lease lasting to at least "
                            + NemesisChecker.millis(settled.reserveLandedUntil()) + ", and a calm from "
                            + NemesisChecker.millis(calm) + " in which settling it surely got through"
                            + (heldFrom == settled.reserveSeenAt() ? "" : " (no other call of the key was out from the "
                            + "marker's end to then, so the key was free for it)") + ": the marker was released or left "
                            + "to expire instead of completed with the result",
                            List.of("call " + settled.id + " failed open, charged " + settled.charged() + " action at "
                                            + NemesisChecker.millis(settled.actionStartedAt()) + ": its own fail-open",
                                    "call " + later.id + " fence " + later.fence() + " charged " + later.charged()
                                            + " action at " + NemesisChecker.millis(later.actionStartedAt())
                                            + ": UNEXPLAINED (reserved after call " + settled.id
                                            + "'s landed marker was seen)")));
                }
            }
        }
        return violations;
    }

    /** As {@link #settleCalm(NemesisHistory, CallRecord, List)}, among the calls of {@code call}'s key in {@code history}. */
    static long settleCalm(NemesisHistory history, CallRecord call) {
        return settleCalm(history, call, history.calls().stream().filter(other -> other.key == call.key).toList());
    }

    /**
     * Where {@code call} failed open on a reserve seen landed, was answered with its charge (its action
     * returned: one that threw has its marker released, and the key is free again), and a calm of {@link #SETTLE_CALM}
     * followed within the lease the settle tries for (which counts from after the action began), and
     * either within the marker's lease or with none of {@code calls} (the key's) out from the marker's
     * possible end to the calm's: that calm's start; {@link Long#MIN_VALUE} otherwise.
     */
    static long settleCalm(NemesisHistory history, CallRecord call, List<CallRecord> calls) {
        // Answered failed open with its charge: an action that threw is settled by a release, honestly.
        if (call.reserveLandedUntil() == 0 || !call.answered() || call.child() || call.outcome() != Outcome.FAILED_OPEN
                || call.chargeId() == null) {
            return Long.MIN_VALUE;
        }
        long until = call.actionStartedAt() + history.settings().lease().toNanos() - LeaseLoss.TICK;
        long markerLive = call.reserveLandedUntil() - LeaseLoss.TICK;
        for (long[] calm : StoreFaults.calms(history, call.answeredAt(), until)) {
            if (calm[1] - calm[0] < SETTLE_CALM) {
                continue;
            }
            long settledBy = calm[0] + SETTLE_CALM;
            return settledBy <= markerLive || noneOut(calls, call, call.reserveLandedUntil(), settledBy)
                    ? calm[0] : Long.MIN_VALUE;
        }
        return Long.MIN_VALUE;
    }

    /**
     * Whether no call of {@code calls} but {@code settled} was out (sent, and not answered) at any moment
     * from {@code from} to {@code to}: none could have taken the free key, or landed a marker of its own.
     */
    private static boolean noneOut(List<CallRecord> calls, CallRecord settled, long from, long to) {
        return calls.stream().noneMatch(other -> other != settled && other.sentAt() > 0 && other.sentAt() < to
                && (!other.answered() || other.answeredAt() > from));
    }

    /** Whether a fault that breaks a promise of the store was injected between {@code from} and {@code to}. */
    private static boolean promiseBroken(NemesisHistory history, long from, long to) {
        return history.faults().stream().anyMatch(fault -> fault.kind().breaksStorePromise() && fault.injected()
                && fault.overlaps(from, to));
    }
}
