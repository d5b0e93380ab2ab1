package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.load.ChargeHistory;
import dev.idemlab.lab.load.HistoryChecker;
import dev.idemlab.lab.load.LedgerCheck;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Reads a nemesis history, and only the history, against the coordinator's contract:
 *
 * <ul>
 *   <li>at most one run of the action per key that charges, unless each run beyond the first is
 *       explained: it failed open (its outcome says so, or, for a stage whose caller cancelled and never
 *       saw it, its action had no fencing number) while a fault of the store was on or had just ended;
 *       or it took the key over from a holder of at least a lease earlier, no sooner than a lease after
 *       the holder's last renewal that no fault can have kept out (the holder's lease lost, or its
 *       completion not written, both counted); or a fault broke a promise of
 *       the store on purpose meanwhile. On a key a holder in a child JVM held, only that holder's fault
 *       explains one more run: it was paused past its lease, or killed. With the provider deduplicating on the key the coordinator
 *       passes, the ledger must hold one charge per key, whatever explains the runs;</li>
 *   <li>every caller that got a charge got one the ledger holds for its key (so replays equal the
 *       first answer: they name that key's only charge);</li>
 *   <li>every call answered, and within its bound;</li>
 *   <li>no stage that was cancelled ran its action afterwards.</li>
 * </ul>
 *
 * <p>The ledger side is the load harness's {@link HistoryChecker}, fed the same history. Stateless.
 */
final class NemesisChecker {

    /** After a fault ends, how long the store may still fail: the circuit's cool-down, a reconnection. */
    static final long RECOVERY = TimeUnit.SECONDS.toNanos(1);
    /** How long before a fail-open a fault may have ended and still explain it: recovery plus the patience. */
    static final long FAIL_OPEN_AFTERMATH = TimeUnit.SECONDS.toNanos(3);
    /**
     * The longest calm after a fault in which a holder might honestly fail to renew: a renewal that
     * failed in the fault is tried again within 200 ms, plus its own round trip and a late timer on a
     * busy machine.
     */
    static final long RENEWAL_CALM = TimeUnit.MILLISECONDS.toNanos(750);
    /** How long after a beat its renewal may take to get through: the round trip and a late timer. */
    static final long BEAT_SLACK = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long TICK = TimeUnit.MILLISECONDS.toNanos(50);
    /** The coordinator's store patience, the default the nemesis runs with: how long a complete is retried in line. */
    private static final long PATIENCE = TimeUnit.SECONDS.toNanos(2);
    /** The step at which the checker tries the moments the holder's first beat may have come at. */
    private static final long PHASE_STEP = TimeUnit.MILLISECONDS.toNanos(10);

    private NemesisChecker() { }

    static NemesisVerdict check(NemesisHistory history) {
        Map<Integer, List<CallRecord>> byKey = new TreeMap<>();
        for (CallRecord call : history.calls()) {
            byKey.computeIfAbsent(call.key, key -> new ArrayList<>()).add(call);
        }
        Map<Integer, List<Charge>> chargesByKey = new HashMap<>();
        Map<String, Integer> keyOfCharge = new HashMap<>();
        for (Charge charge : history.ledger()) {
            int key = LoadKeys.indexOfOrder(charge.orderId());
            chargesByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(charge);
            keyOfCharge.put(charge.id(), key);
        }
        List<Violation> violations = new ArrayList<>();
        Map<String, Integer> explanations = new TreeMap<>();
        int explained = 0;
        for (Map.Entry<Integer, List<CallRecord>> entry : byKey.entrySet()) {
            int key = entry.getKey();
            List<CallRecord> calls = entry.getValue();
            int charges = chargesByKey.getOrDefault(key, List.of()).size();
            if (history.settings().downstreamKey() && charges > 1) {
                violations.add(new Violation("duplicate-charge", key, charges + " charges "
                        + chargesByKey.get(key).stream().map(Charge::id).toList() + " although the provider "
                        + "deduplicates on the key the coordinator passes it: two calls passed different keys"));
                continue;
            }
            // With the provider deduplicating, the ledger hides a second run of the action: count the runs.
            int extra = Math.max(charges, (int) calls.stream().filter(call -> call.charged() != null).count()) - 1;
            if (extra > 0) {
                String why = explanation(history, calls, extra,
                        holderKey(calls) ? holderFaultExplanation(history, key, calls, charges) : null);
                if (why == null) {
                    violations.add(new Violation("duplicate-charge", key, (extra + 1) + " runs of the action, charges "
                            + chargesByKey.getOrDefault(key, List.of()).stream().map(Charge::id).toList()
                            + ", and nothing explains " + (extra == 1 ? "the second" : "them")));
                } else {
                    explained += extra;
                    explanations.merge(why, extra, Integer::sum);
                }
            }
            for (CallRecord call : calls) {
                callRules(call, keyOfCharge, violations);
            }
        }
        return new NemesisVerdict(ledgerCheck(history), violations, explained, explanations);
    }

    private static void callRules(CallRecord call, Map<String, Integer> keyOfCharge, List<Violation> violations) {
        if (!call.answered()) {
            violations.add(new Violation("no-answer", call.key, "call " + call.id + " (caller " + call.caller
                    + ") never answered" + (call.async ? ": its stage never completed" : "")));
            return;
        }
        if (call.chargeId() != null && !Integer.valueOf(call.key).equals(keyOfCharge.get(call.chargeId()))) {
            violations.add(new Violation("answer-not-in-ledger", call.key, "call " + call.id + " got "
                    + call.chargeId() + ", which the ledger does not hold for its key"));
        }
        long took = call.answeredAt() - call.sentAt();
        if (took > call.boundNanos) {
            violations.add(new Violation("outlived-bound", call.key, String.format(java.util.Locale.ROOT,
                    "call %d took %.1f s, beyond its bound of %.1f s", call.id, took / 1e9, call.boundNanos / 1e9)));
        }
        if (call.cancelledAt() != 0 && call.actionStartedAt() > call.cancelledAt()) {
            violations.add(new Violation("action-after-cancel", call.key, "call " + call.id + "'s stage was cancelled at "
                    + millis(call.cancelledAt()) + " and its action started at " + millis(call.actionStartedAt())));
        }
    }

    /**
     * Why a key's actions charged {@code extra} more times than once, or {@code null} when nothing the
     * run counted explains it. Every charge beyond the first needs an explanation of its own: a call
     * that failed open while the store was faulted (or just after), wherever it stands among the key's
     * charging calls; a call that took the key over from an earlier holder that lost its lease while the
     * store could not be reached but for moments shorter than a renewal; or a fault that broke a store
     * promise meanwhile.
     */
    private static String explanation(NemesisHistory history, List<CallRecord> calls, int extra, String holderFault) {
        List<CallRecord> charging = calls.stream().filter(call -> call.charged() != null)
                .sorted(Comparator.comparingLong(CallRecord::actionStartedAt)).toList();
        Map<String, Integer> reasons = new TreeMap<>();
        if (holderFault != null) {
            reasons.put(holderFault, 1); // the one run the holder fault explains: the child's, or the takeover of its key
        }
        for (int i = 0; i < charging.size(); i++) {
            String why = whyItRan(history, charging, i);
            if (why != null) {
                reasons.merge(why, 1, Integer::sum);
            }
        }
        int explained = reasons.values().stream().mapToInt(Integer::intValue).sum();
        return explained < extra ? null : reasons.keySet().iterator().next();
    }

    /** Whether {@code calls} are those of a key a holder fault held: a child JVM's call is among them. */
    private static boolean holderKey(List<CallRecord> calls) {
        return calls.stream().anyMatch(CallRecord::child);
    }

    /**
     * On a key a holder in a child JVM held, that holder's fault explains one run of the action beyond
     * the first: the retry that took the key once the paused child's lease ran out (the child then
     * charged as it resumed), or once the killed child's marker expired (the child had charged). Other
     * runs there need an explanation of their own (a fail-open under a store fault, say), never the
     * child's lost lease again. A fault that was not played in full explains nothing, and neither does
     * one whose child never ran the action: its line says it charged, or the ledger holds a charge for
     * the key that no call of this process made (a child killed between its charge and its line). A
     * child killed before it charged leaves its retries to charge once between them.
     */
    private static String holderFaultExplanation(NemesisHistory history, int key, List<CallRecord> calls,
                                                 int charges) {
        long inProcess = calls.stream().filter(call -> !call.child() && call.charged() != null).count();
        boolean childCharged = calls.stream().anyMatch(call -> call.child() && call.charged() != null)
                || charges > inProcess;
        if (!childCharged) {
            return null;
        }
        return history.faults().stream().filter(fault -> fault.key() == key && fault.injected()
                        && fault.kind().onChildHolder())
                .map(fault -> Explanation.ofHolderFault(fault.kind()).named()).findFirst().orElse(null);
    }

    /** Why the {@code i}th charging call of a key may honestly have charged beside another, or {@code null}. */
    private static String whyItRan(NemesisHistory history, List<CallRecord> charging, int i) {
        CallRecord call = charging.get(i);
        if (failedOpen(call) && injectedFault(history, call.sentAt() - FAIL_OPEN_AFTERMATH, call.actionStartedAt())) {
            return Explanation.FAIL_OPEN.named();
        }
        if (failedOpen(call) && storeFaulted(history, call.sentAt() - FAIL_OPEN_AFTERMATH, call.actionStartedAt())) {
            return Explanation.FAIL_OPEN_IN_STALL.named();
        }
        if (i == 0) {
            return null;
        }
        for (int earlier = 0; earlier < i; earlier++) {
            // A child holder's lost lease is its holder fault's to explain, once (see holderFaultExplanation).
            if (!charging.get(earlier).child() && lostItsLeaseTo(history, charging.get(earlier), call)) {
                return Explanation.TAKEOVER.named();
            }
        }
        long from = charging.get(0).actionStartedAt();
        for (FaultEvent fault : history.faults()) {
            if (fault.kind().breaksStorePromise() && fault.overlaps(from, call.actionStartedAt())) {
                return Explanation.BROKEN_PROMISE.named(fault.kind());
            }
        }
        return null;
    }

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
     * means it landed. Either way nothing was left to take over.
     *
     * <p>Every store fault counts as keeping renewals out, also those under which a request may still
     * reach the server ({@code drop-replies}, or a {@code freeze} it is delivered after): the history
     * does not say which renewals landed.
     */
    private static boolean lostItsLeaseTo(NemesisHistory history, CallRecord holder, CallRecord taker) {
        long lease = history.settings().lease().toNanos();
        long takenAt = taker.actionStartedAt();
        long landed = reserveLandedNoEarlierThan(history, holder);
        if (takenAt - landed < lease - TICK) {
            return false;
        }
        // A holder that answered before the takeover had its complete land as it answered (then nothing was
        // left to take over), unless a store fault kept it out for the whole patience: then the complete was
        // left to the background, which tries for a lease, renewing meanwhile.
        long renewedUntil = takenAt;
        boolean settling = holder.answered() && holder.answeredAt() < takenAt;
        if (settling) {
            // a fault on, or ended less than a recovery before, within the patience before the answer
            if (!storeFaulted(history, holder.answeredAt() - PATIENCE - RECOVERY, holder.answeredAt() - RECOVERY)) {
                return false;
            }
            renewedUntil = Math.min(takenAt, holder.answeredAt() + lease);
        }
        // The coordinator's default heartbeat: a third of the lease.
        long interval = lease / 3;
        long[] firstBeat = firstBeat(holder, lease, interval);
        long leaseEnd = landed + lease;
        for (long[] calm : calms(history, holder.actionStartedAt(), renewedUntil)) {
            boolean afterAFault = calm[0] > holder.actionStartedAt();
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
            long lastSureRenewal = Math.max(retried ? calm[0] - RECOVERY : Long.MIN_VALUE,
                    latestSureBeat(firstBeat, interval, calm));
            leaseEnd = Math.max(leaseEnd, lastSureRenewal + lease);
        }
        if (settling) {
            // A calm long enough for a try of the settle while the lease still held: the complete landed.
            for (long[] calm : calms(history, holder.answeredAt(), Math.min(renewedUntil, leaseEnd))) {
                if (calm[1] - calm[0] >= RENEWAL_CALM) {
                    return false;
                }
            }
        }
        return takenAt >= leaseEnd - TICK;
    }

    /**
     * The earliest moment the holder's reserve can have landed, from which its lease counts: just before
     * its action began when the store was calm then (nothing held the reply back), else as early as the
     * call was sent (a reserve that waited on a fault may have landed, or on PostgreSQL started its
     * statement, long before its reply came).
     */
    private static long reserveLandedNoEarlierThan(NemesisHistory history, CallRecord holder) {
        long started = holder.actionStartedAt();
        // a fault on, or ended less than a recovery before, in the slack before the action began
        return storeFaulted(history, started - BEAT_SLACK - RECOVERY, started - RECOVERY) ? holder.sentAt()
                : Math.max(holder.sentAt(), started - BEAT_SLACK);
    }

    /**
     * When the holder's first beat may have come, earliest and latest: an interval after its action
     * started, or within a third of the lease its reserve left, which counts from the reserve's first
     * try, no earlier than the call was sent (a reserve that waited out a stall renews sooner). The
     * beats then follow an interval apart.
     */
    private static long[] firstBeat(CallRecord holder, long lease, long interval) {
        long started = holder.actionStartedAt();
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

    /**
     * Whether a fault of the store was on, or just over, at some moment between {@code from} and {@code to}:
     * one the nemesis injected, or a stall its watch saw (see {@link StallWatch}).
     */
    private static boolean storeFaulted(NemesisHistory history, long from, long to) {
        return storeFaultWindows(history).stream().anyMatch(window -> window[0] <= to + RECOVERY && window[1] >= from);
    }

    /** Whether a fault of the store the nemesis injected was on, or just over, between {@code from} and {@code to}. */
    private static boolean injectedFault(NemesisHistory history, long from, long to) {
        return history.faults().stream().anyMatch(fault -> onStore(fault.kind()) && fault.overlaps(from, to + RECOVERY));
    }

    /** The store's faults, injected and observed, each as its start and end. */
    private static List<long[]> storeFaultWindows(NemesisHistory history) {
        List<long[]> windows = new ArrayList<>();
        history.faults().stream().filter(fault -> onStore(fault.kind()))
                .forEach(fault -> windows.add(new long[] {fault.startedAt(), fault.endedAt()}));
        history.stalls().forEach(stall -> windows.add(new long[] {stall.startedAt(), stall.endedAt()}));
        return windows;
    }

    /** Whether {@code kind} is a fault of the store: not of the callers' executor, nor of a child holder. */
    static boolean onStore(FaultKind kind) {
        return kind != FaultKind.REJECT_RESUMPTIONS && !kind.onChildHolder();
    }

    /**
     * The stretches between {@code from} and {@code to} with no fault of the store on and none ended
     * less than {@link #RECOVERY} before (the circuit's cool-down, a reconnection), in order, each as
     * its start and end.
     */
    private static List<long[]> calms(NemesisHistory history, long from, long to) {
        List<long[]> faulted = storeFaultWindows(history).stream()
                .map(window -> new long[] {window[0], window[1] + RECOVERY})
                .sorted(Comparator.comparingLong(window -> window[0])).toList();
        List<long[]> calms = new ArrayList<>();
        long cursor = from;
        for (long[] window : faulted) {
            if (window[1] < cursor || window[0] > to) {
                continue;
            }
            if (window[0] > cursor) {
                calms.add(new long[] {cursor, window[0]});
            }
            cursor = Math.max(cursor, window[1]);
        }
        if (to > cursor) {
            calms.add(new long[] {cursor, to});
        }
        return calms;
    }

    /**
     * Whether {@code call} ran its action failing open: its outcome says so, or, for a call whose outcome
     * its caller never saw (a cancelled stage), the action's context had no fencing number. An answer of
     * another outcome outweighs the context: an EXECUTED call ran as the key's holder, whatever it was told.
     */
    private static boolean failedOpen(CallRecord call) {
        return call.outcome() == Outcome.FAILED_OPEN || (call.outcome() == null && call.ranWithoutReservation());
    }

    /** The load harness's check of the same history against the same ledger. */
    private static LedgerCheck ledgerCheck(NemesisHistory history) {
        ChargeHistory charges = new ChargeHistory();
        for (CallRecord call : history.calls()) {
            charges.invoked();
            if (call.chargeId() != null) {
                charges.answered(call.key, call.chargeId(), call.outcome());
            } else if (call.errorKind() != null) {
                charges.failed(call.errorKind());
            }
        }
        LabPolicy policy = history.settings().sabotage() == Sabotage.RESULT_CACHE ? LabPolicy.RUN : LabPolicy.WAIT;
        // The action passes the coordinator's downstream key: the ledger says which request a charge was by its order.
        List<Charge> byLoadKey = history.ledger().stream().map(charge -> new Charge(charge.id(), charge.orderId(),
                charge.amount(), LoadKeys.key(LoadKeys.indexOfOrder(charge.orderId())))).toList();
        return HistoryChecker.check(policy, charges, byLoadKey, history.stats());
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
