package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;

import java.util.concurrent.TimeUnit;

/**
 * Whether a holder's lease can honestly have run out under it while it lived, so that another call
 * took its key over: the beats its heartbeat renewed at, the calms between the store's faults in which
 * a renewal surely got through, and the lease those renewals kept. The one place the checker reasons
 * about renewals. Stateless.
 */
final class LeaseLoss {

    /**
     * The longest calm after a fault in which a holder might honestly fail to renew: a renewal that
     * failed in the fault is tried again within 200 ms, plus its own round trip and a late timer on a
     * busy machine.
     */
    static final long RENEWAL_CALM = TimeUnit.MILLISECONDS.toNanos(750);
    /** How long after a beat its renewal may take to get through: the round trip and a late timer. */
    static final long BEAT_SLACK = TimeUnit.MILLISECONDS.toNanos(250);
    static final long TICK = TimeUnit.MILLISECONDS.toNanos(50);
    /** The coordinator's store patience, the default the nemesis runs with: how long a complete is retried in line. */
    private static final long PATIENCE = TimeUnit.SECONDS.toNanos(2);
    /**
     * The step at which the checker tries the moments an action whose start is only bounded
     * ({@link CallRecord#actionStartBounded()}) may have begun at.
     */
    private static final long BOUNDED_START_STEP = TimeUnit.MILLISECONDS.toNanos(50);
    /** The step at which the checker tries the moments the holder's first beat may have come at. */
    private static final long PHASE_STEP = TimeUnit.MILLISECONDS.toNanos(10);

    private LeaseLoss() { }

    /**
     * Whether {@code holder} may honestly have lost the key to {@code taker}: the taker ran no earlier than
     * the store's lease can have ended, a lease after the holder's last renewal that surely got through,
     * or after its reserve landed (see {@link #reserveLandedNoEarlierThan}: on PostgreSQL a lease counts
     * from the statement's start, however long it then waited on a lock). A renewal surely got through in
     * a calm that holds one of the holder's beats with {@link #BEAT_SLACK} left (the latest such beat,
     * whatever the beats' phase was; see {@link #firstBeat}), and in a calm after a fault long enough for
     * the retry of a renewal that failed in it ({@link #RENEWAL_CALM}), no earlier than that fault ended;
     * any other renewal may have been lost to a fault. Renewals chain: a calm's sure renewals extend the
     * lease only when the first of them surely got through before the lease they extend ran out (a calm
     * that begins as the lease may just have ended finds the key gone, and no later renewal brings it
     * back). Whatever the holder was told (its lease lost, or
     * its completion not written: the caller still gets its result, and the duplicate risk is counted),
     * the store's lease ended while it could not be reached.
     *
     * <p>A holder that answered before the takeover: its complete landed as it answered unless a store
     * fault was on within the patience before; then it was left to the background, which renews and
     * tries for a lease at most, and a calm long enough for one of its tries while the lease still held
     * means it landed. Either way nothing was left to take over. A complete lands only under a live lease:
     * unless the coordinator itself answered that it was kept ({@link #toldItsCompleteWasKept}), a lease
     * that may have run out before the answer left the key free. A caller that stopped listening says
     * nothing of when its attempt ended.
     *
     * <p>An action whose start is only bounded (the sample's, dated by its charge) may have begun, reserved
     * and started its heartbeat at any moment from its send to that bound: the lease can have been lost
     * only if it can have been for one such moment, its reserve, its beats and its lease taken together,
     * never the earliest reserve with the latest beats.
     *
     * <p>Every store fault counts as keeping renewals out, also those under which a request may still
     * reach the server ({@code drop-replies}, or a {@code freeze} it is delivered after): the history
     * does not say which renewals landed.
     */
    static boolean lostItsLeaseTo(NemesisHistory history, CallRecord holder, CallRecord taker) {
        if (!holder.actionStartBounded()) {
            return lostItsLeaseTo(history, holder, taker, holder.actionStartedAt());
        }
        // The action began, and so did its heartbeat, at some moment from the send to the bound: the lease
        // can have been lost only if it can have been for one of them, reserve, beats and lease together.
        for (long started = holder.sentAt(); ; started = Math.min(started + BOUNDED_START_STEP, holder.actionStartedAt())) {
            if (lostItsLeaseTo(history, holder, taker, started)) {
                return true;
            }
            if (started == holder.actionStartedAt()) {
                return false;
            }
        }
    }

    /** As {@link #lostItsLeaseTo(NemesisHistory, CallRecord, CallRecord)}, for an action that began at {@code started}. */
    private static boolean lostItsLeaseTo(NemesisHistory history, CallRecord holder, CallRecord taker, long started) {
        long lease = history.settings().lease().toNanos();
        long takenAt = taker.actionStartedAt();
        long landed = reserveLandedNoEarlierThan(history, holder, started);
        if (takenAt - landed < lease - TICK) {
            return false;
        }
        // A holder that answered before the takeover had its complete land as it answered (then nothing was
        // left to take over), unless a store fault kept it out for the whole patience: then the complete was
        // left to the background, which tries for a lease, renewing meanwhile.
        // Over HTTP the attempt's end is the server's, not the client's answer: a client that gave up left
        // an attempt that went on, renewed and settled later. (A cancelled stage's answer is read as its end.)
        // A complete only lands while the lease holds: where the coordinator's own word does not say it was
        // kept, a lease that may have run out before the answer left nothing settled either.
        long renewedUntil = takenAt;
        long answeredAt = holder.cancelledAt() != 0 ? holder.attemptEndedAt() : ExtraCharges.doneAt(holder);
        boolean settling = answeredAt != 0 && answeredAt < takenAt;
        boolean settledAsItAnswered = false;
        if (settling) {
            // a fault on, or ended less than a recovery before, within the patience before the answer
            if (!StoreFaults.storeFaulted(history, answeredAt - PATIENCE - StoreFaults.RECOVERY,
                    answeredAt - StoreFaults.RECOVERY)) {
                if (toldItsCompleteWasKept(history, holder)) {
                    return false;
                }
                settledAsItAnswered = true;
                renewedUntil = answeredAt;
            } else {
                renewedUntil = Math.min(takenAt, answeredAt + lease);
            }
        }
        // The coordinator's default heartbeat: a third of the lease.
        long interval = lease / 3;
        long[] firstBeat = firstBeat(holder, started, lease, interval);
        long leaseEnd = landed + lease;
        for (long[] calm : StoreFaults.calms(history, started, renewedUntil)) {
            boolean afterAFault = calm[0] > started;
            boolean retried = afterAFault && calm[1] - calm[0] >= RENEWAL_CALM;
            // A renewal keeps the key only while its lease still holds: once it may have run out, the store
            // refuses every later one (the token is gone, or its lease is over by the server's clock).
            long firstLanded = Math.min(retried ? calm[0] + RENEWAL_CALM : Long.MAX_VALUE,
                    firstSureBeatLanded(firstBeat, interval, calm));
            if (firstLanded == Long.MAX_VALUE) {
                continue;
            }
            if (firstLanded > leaseEnd - TICK) {
                break;
            }
            long lastSureRenewal = Math.max(retried ? calm[0] - StoreFaults.RECOVERY : Long.MIN_VALUE,
                    latestSureBeat(firstBeat, interval, calm));
            leaseEnd = Math.max(leaseEnd, lastSureRenewal + lease);
        }
        if (settledAsItAnswered) {
            return answeredAt >= leaseEnd - TICK;
        }
        if (settling) {
            // A calm long enough for a try of the settle while the lease still held: the complete landed.
            for (long[] calm : StoreFaults.calms(history, answeredAt, Math.min(renewedUntil, leaseEnd))) {
                if (calm[1] - calm[0] >= RENEWAL_CALM) {
                    return false;
                }
            }
        }
        return takenAt >= leaseEnd - TICK;
    }

    /**
     * Whether the holder's answer says its complete was kept under its lease: the coordinator's own outcome,
     * {@link Outcome#EXECUTED} (a lease found lost, or a complete not kept, is {@link Outcome#LEASE_LOST}),
     * straight from the coordinator or as the HTTP filters' server recorded it for the request. Otherwise
     * (the proxy, the sample) the outcome is read off the answer, a charge returned or a 201, which a holder
     * whose lease ran out gets too.
     */
    static boolean toldItsCompleteWasKept(NemesisHistory history, CallRecord holder) {
        Through through = history.settings().through();
        return holder.outcome() == Outcome.EXECUTED
                && (through == Through.COORDINATOR || through.filter() && holder.attemptEndSeenByServer());
    }

    /**
     * The earliest moment the holder's reserve can have landed, from which its lease counts, for an action
     * that began at {@code started}: just before it when the store was calm then (nothing held the reply
     * back), else as early as the call was sent (a reserve that waited on a fault may have landed, or on
     * PostgreSQL started its statement, long before its reply came).
     */
    private static long reserveLandedNoEarlierThan(NemesisHistory history, CallRecord holder, long started) {
        // a fault on, or ended less than a recovery before, in the slack before the action began
        return StoreFaults.storeFaulted(history, started - BEAT_SLACK - StoreFaults.RECOVERY, started - StoreFaults.RECOVERY)
                ? holder.sentAt()
                : Math.max(holder.sentAt(), started - BEAT_SLACK);
    }

    /**
     * When the holder's first beat may have come, earliest and latest, for an action that began at
     * {@code started}: an interval after it, or within a third of the lease its reserve left, which counts
     * from the reserve's first try, no earlier than the call was sent (a reserve that waited out a stall
     * renews sooner). The beats then follow an interval apart.
     */
    private static long[] firstBeat(CallRecord holder, long started, long lease, long interval) {
        long leftAtStart = Math.max(0, holder.sentAt() + lease - started);
        return new long[] {started + Math.min(interval, leftAtStart / 3), started + interval};
    }

    /**
     * The latest beat in {@code calm} with {@link #BEAT_SLACK} left for its renewal, for the first beat's
     * least favourable moment in {@code firstBeat} (tried every {@link #PHASE_STEP}); {@link Long#MIN_VALUE}
     * when for some such moment no beat falls in the calm.
     */
    private static long latestSureBeat(long[] firstBeat, long interval, long[] calm) {
        long sure = Long.MAX_VALUE;
        for (long first = firstBeat[0]; ; first = Math.min(first + PHASE_STEP, firstBeat[1])) {
            long lastUsable = calm[1] - BEAT_SLACK;
            if (lastUsable < first) {
                return Long.MIN_VALUE;
            }
            long beat = first + (lastUsable - first) / interval * interval;
            if (beat < calm[0]) {
                return Long.MIN_VALUE;
            }
            sure = Math.min(sure, beat);
            if (first == firstBeat[1]) {
                return sure;
            }
        }
    }

    /**
     * The latest moment, for the first beat's least favourable moment in {@code firstBeat}, by which the
     * renewal of the first beat in {@code calm} has got through ({@link #BEAT_SLACK} after the beat);
     * {@link Long#MAX_VALUE} when for some such moment no beat with that slack left falls in the calm.
     */
    private static long firstSureBeatLanded(long[] firstBeat, long interval, long[] calm) {
        long latest = Long.MIN_VALUE;
        for (long first = firstBeat[0]; ; first = Math.min(first + PHASE_STEP, firstBeat[1])) {
            long beat = first >= calm[0] ? first : first + -Math.floorDiv(first - calm[0], interval) * interval;
            if (beat + BEAT_SLACK > calm[1]) {
                return Long.MAX_VALUE;
            }
            latest = Math.max(latest, beat + BEAT_SLACK);
            if (first == firstBeat[1]) {
                return latest;
            }
        }
    }

}
