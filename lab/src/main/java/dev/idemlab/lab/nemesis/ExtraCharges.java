package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Explains a key's charges beyond the first, each by one event of its own, or says which it cannot. A
 * charge is explained by an event tied to the call that made it, and an event explains one charge,
 * never several:
 *
 * <ul>
 *   <li>the call's own fail-open, counted, where the history shows the store error behind it (a fault of
 *       the store on, or just over, or a stall the run's watch saw); never on the in-memory store, whose
 *       calls cannot fail;</li>
 *   <li>a takeover: an earlier holder, which reserved the key (a call that failed open never did, and
 *       neither left a lease to take over), lost its lease to a fault of the store before this call ran
 *       (see {@link LeaseLoss}); each holder's lost lease explains one taker;</li>
 *   <li>a fault that broke a promise of the store, only for a record it could really have lost (what a
 *       restart's snapshot did not hold, a reservation a clock jump expired) and only for a charge its
 *       effect reached (after it, within a lease of its end, or for a lost result within the workload's
 *       retries of the key, and on through the takers of the freed key that failed and let go of it); each
 *       lost record explains one charge;</li>
 *   <li>on a key a holder in a child JVM held, that holder's pause or kill, once;</li>
 *   <li>a holder whose whole JVM (the sample's) was paused or killed as it held the key, for a charge
 *       made once its lease can have ended ({@link SampleHolderLoss}), once per holder and fault.</li>
 * </ul>
 *
 * <p>Which event explains which charge is a matching (augmenting paths over a few calls per key): the
 * key's charges hold when all but one are matched. Stateless.
 */
final class ExtraCharges {

    /** How long before a fail-open a fault may have ended and still explain it: recovery plus the patience. */
    static final long FAIL_OPEN_AFTERMATH = TimeUnit.SECONDS.toNanos(3);

    private ExtraCharges() { }

    /**
     * One charge of a key: made by {@code call}'s action, or found in the ledger only ({@code ledgerOnly}:
     * a child killed between its charge and its line, then {@code call} is that child's, or {@code null}).
     */
    record Charged(CallRecord call, String charge, boolean ledgerOnly) {

        long at() {
            return call == null ? Long.MAX_VALUE : call.actionStartedAt();
        }

        String describe() {
            if (call == null) {
                return charge + " (in the ledger only, made by no call of the history)";
            }
            return (ledgerOnly ? charge + " (in the ledger only) of " : charge + " by ") + "call " + call.id
                    + (call.fence() > 0 ? " fence " + call.fence() : call.ranWithoutReservation() ? " unreserved" : "")
                    + (call.actionStartedAt() == 0 ? "" : " action at " + NemesisChecker.millis(call.actionStartedAt()));
        }
    }

    /**
     * One event that may explain one charge: its kind, the one thing it names ({@code id}: two candidates
     * with one id are one event, used once) and, for the report, what it was.
     */
    record Event(Explanation kind, FaultKind fault, String id, String what) {

        String named() {
            return fault == null ? kind.named() : kind.named(fault);
        }
    }

    /**
     * A key's charges and what explains them.
     *
     * @param charges every charge of the key, in the order their actions ran
     * @param explainedBy for each charge, the event matched to it, or {@code null}
     */
    record Explained(List<Charged> charges, List<Event> explainedBy) {

        /** Whether every charge but one has an event of its own. */
        boolean holds() {
            return unexplained().size() <= 1;
        }

        /** How many charges beyond the first there are. */
        int extra() {
            return Math.max(0, charges.size() - 1);
        }

        List<Charged> unexplained() {
            List<Charged> left = new ArrayList<>();
            for (int i = 0; i < charges.size(); i++) {
                if (explainedBy.get(i) == null) {
                    left.add(charges.get(i));
                }
            }
            return left;
        }

        /**
         * The events counted as explaining the extra charges: every matched one, less the earliest charge's
         * when all were matched (the first charge needs no explanation).
         */
        List<Event> counted() {
            boolean allMatched = unexplained().isEmpty();
            List<Event> counted = new ArrayList<>();
            for (int i = 0; i < explainedBy.size(); i++) {
                if (explainedBy.get(i) != null && !(allMatched && i == 0)) {
                    counted.add(explainedBy.get(i));
                }
            }
            return counted;
        }

        /** The witness lines: each charge and what explains it, or that nothing does. */
        List<String> witness() {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < charges.size(); i++) {
                Event event = explainedBy.get(i);
                lines.add(charges.get(i).describe() + ": " + (event != null ? "explained by " + event.what()
                        : i == firstUnexplained() ? "the key's one charge" : "UNEXPLAINED"));
            }
            return lines;
        }

        private int firstUnexplained() {
            return explainedBy.indexOf(null);
        }
    }

    /** What explains the charges of {@code key}, whose calls are {@code calls} and whose ledger holds {@code ledger}. */
    static Explained explain(NemesisHistory history, int key, List<CallRecord> calls, List<String> ledger) {
        List<Charged> charges = charges(calls, ledger);
        List<List<Event>> candidates = new ArrayList<>();
        Event holderFault = holderFault(history, key, calls, ledger.size());
        for (int i = 0; i < charges.size(); i++) {
            candidates.add(candidates(history, calls, charges, i, holderFault));
        }
        return new Explained(charges, match(candidates));
    }

    /** The key's charges: its calls' own, in the order their actions ran, then those only the ledger holds. */
    private static List<Charged> charges(List<CallRecord> calls, List<String> ledger) {
        List<Charged> charges = new ArrayList<>();
        calls.stream().filter(call -> call.charged() != null)
                .sorted(Comparator.comparingLong(CallRecord::actionStartedAt))
                .forEach(call -> charges.add(new Charged(call, call.charged(), false)));
        CallRecord child = calls.stream().filter(call -> call.child() && call.charged() == null).findFirst()
                .orElse(null);
        List<String> made = charges.stream().map(Charged::charge).toList();
        int ledgerOnly = ledger.size() - charges.size();
        for (String charge : ledger) {
            if (ledgerOnly > 0 && !made.contains(charge)) {
                charges.add(new Charged(child, charge, true));
                ledgerOnly--;
            }
        }
        return charges;
    }

    /** The events that may explain the {@code i}th charge. */
    private static List<Event> candidates(NemesisHistory history, List<CallRecord> calls, List<Charged> charges, int i,
                                          Event holderFault) {
        List<Event> events = new ArrayList<>();
        if (holderFault != null) {
            events.add(holderFault);
        }
        Charged charged = charges.get(i);
        if (charged.ledgerOnly() || charged.call() == null) {
            return events; // a child's charge with no line: only its holder fault can explain it
        }
        CallRecord call = charged.call();
        Event failOpen = failOpen(history, call);
        if (failOpen != null) {
            events.add(failOpen);
        }
        for (int other = 0; other < charges.size(); other++) {
            CallRecord holder = charges.get(other).call();
            if (other == i || holder == null || !reserved(holder)) {
                continue;
            }
            // The whole JVM that served the holder was paused or killed: its lease ran out, whoever charged first.
            events.addAll(SampleHolderLoss.events(history, holder, call));
            if (!reservedBefore(holder, call)) {
                continue;
            }
            if (!holder.child() && LeaseLoss.lostItsLeaseTo(history, holder, call)) {
                events.add(new Event(Explanation.TAKEOVER, null, "lease of " + holder.id, "the lease of call "
                        + holder.id + (holder.fence() > 0 ? " (fence " + holder.fence() + ")" : "")
                        + ", ended under a fault of the store"));
            }
            for (FaultEvent fault : history.faults()) {
                if (fault.kind().breaksStorePromise() && fault.injected() && lost(history, calls, fault, holder, call)) {
                    events.add(new Event(Explanation.BROKEN_PROMISE, fault.kind(),
                            fault.kind().id() + "@" + fault.startedAt() + " lost " + holder.id, fault.kind().id() + " at "
                            + NemesisChecker.millis(fault.startedAt()) + ", which lost call " + holder.id + "'s record"));
                }
            }
        }
        return events;
    }

    /**
     * Whether {@code holder} reserved the key before {@code taker}: by their fences where both are known
     * (a reservation's fence orders it, whenever its action then began on a busy machine), else by when
     * their actions began.
     */
    private static boolean reservedBefore(CallRecord holder, CallRecord taker) {
        return holder.fence() > 0 && taker.fence() > 0 ? holder.fence() < taker.fence()
                : holder.actionStartedAt() < taker.actionStartedAt();
    }

    /** The call's own fail-open, where the history shows a store error behind it; {@code null} otherwise. */
    private static Event failOpen(NemesisHistory history, CallRecord call) {
        if (!failedOpen(call) || "memory".equals(history.server().store())) {
            return null;
        }
        long from = call.sentAt() - FAIL_OPEN_AFTERMATH;
        if (StoreFaults.injectedFault(history, from, call.actionStartedAt())) {
            return new Event(Explanation.FAIL_OPEN, null, "fail-open " + call.id, "call " + call.id + "'s own fail-open under an injected fault");
        }
        if (StoreFaults.storeFaulted(history, from, call.actionStartedAt())) {
            return new Event(Explanation.FAIL_OPEN_IN_STALL, null, "fail-open " + call.id, "call " + call.id + "'s own fail-open in a stall");
        }
        return null;
    }

    /**
     * Whether {@code fault} can have lost the record {@code holder} wrote, so that {@code taker} found the
     * key free: a clock jump expires the reservations held as it comes (a result outlives it: its ttl is
     * far longer than the jump), a restart from a snapshot loses what was written after the snapshot (the
     * holder's reserve or its complete came between the save and the restart). The taker must run after
     * the fault began (a restart's effect: after the restart) and have been sent within the fault's reach:
     * a lost reservation leaves the key free until its holder, whose renewals now fail, completes it as it
     * answers (a lease after the fault at least); a lost result leaves it free for good, which reaches the
     * retries the workload still sends (two leases after the fault). So does a lost reservation whose holder
     * answered that it lost its lease: its complete found no reservation under its token and stored
     * nothing, so the key stays free after that answer too (two leases after it). A taker sent in time may
     * still have waited out another fault of the store before its reserve got through.
     */
    private static boolean lost(NemesisHistory history, List<CallRecord> calls, FaultEvent fault, CallRecord holder,
                                CallRecord taker) {
        long lease = history.settings().lease().toNanos();
        long tick = LeaseLoss.TICK;
        long done = doneAt(holder);
        boolean answeredBefore = done < fault.startedAt() - LeaseLoss.BEAT_SLACK;
        boolean lostWrite;
        boolean resultLost;
        // The reserve landed between the call's send and its action's start: the history knows no closer.
        if (fault.kind() == FaultKind.CLOCK_JUMP) {
            lostWrite = holder.sentAt() <= fault.startedAt() + tick && !answeredBefore;
            resultLost = false;
        } else {
            lostWrite = holder.sentAt() <= fault.endedAt()
                    && (holder.actionStartedAt() >= fault.startedAt() - tick || !answeredBefore);
            resultLost = done <= fault.endedAt();
        }
        // A holder told its lease was lost completed nothing: the key stays free after it answered too.
        boolean neverCompleted = holder.outcome() == Outcome.LEASE_LOST && done != Long.MAX_VALUE;
        long effectFrom = fault.kind() == FaultKind.CLOCK_JUMP ? fault.startedAt() : fault.endedAt();
        long reach = resultLost ? fault.endedAt() + 2 * lease + StoreFaults.RECOVERY
                : Math.max(fault.endedAt() + lease + StoreFaults.RECOVERY, neverCompleted ? done + 2 * lease : done);
        if (lostWrite && taker.sentAt() > reach && !LeaseLoss.toldItsCompleteWasKept(history, holder)) {
            reach = releasedThrough(history, calls, holder, effectFrom - tick, reach);
        }
        return lostWrite && taker.actionStartedAt() >= effectFrom - tick && taker.sentAt() <= reach;
    }

    /**
     * How far the loss of {@code holder}'s record reaches once the calls that took the freed key and let go
     * of it are counted, where the holder's answer does not say its complete was kept: such a call, sent
     * within the reach, took the key while the holder still held it (so the holder's complete found it
     * taken and stored nothing) or, for a later link, once the previous one let go; held it while its
     * action ran, then failed without charging and released it, so the key was free again, and the lost
     * record's charge still unknown to the store, after it answered (two leases after, for the workload's
     * retries). The chain ends at the first taker that charged (its charge is the one the loss explains;
     * any after it needs an event of its own), whose outcome is not known, or that does not link.
     */
    private static long releasedThrough(NemesisHistory history, List<CallRecord> calls, CallRecord holder, long from,
                                        long reach) {
        long lease = history.settings().lease().toNanos();
        List<CallRecord> takers = calls.stream()
                .filter(call -> call != holder && !call.child() && reserved(call)
                        && call.actionStartedAt() != 0 && call.actionStartedAt() >= from
                        && (holder.fence() <= 0 || call.fence() > holder.fence()))
                .sorted(Comparator.comparingLong(CallRecord::fence).thenComparingLong(CallRecord::actionStartedAt))
                .toList();
        // The holder held the key until it answered, unless it said its lease was lost.
        long freedAt = holder.outcome() == Outcome.LEASE_LOST ? Long.MAX_VALUE : doneAt(holder);
        boolean first = true;
        for (CallRecord call : takers) {
            if (call.sentAt() > reach || call.charged() != null || call.outcome() != null) {
                break;
            }
            boolean links = first ? call.actionStartedAt() <= freedAt + LeaseLoss.TICK
                    : call.actionStartedAt() >= freedAt - LeaseLoss.TICK;
            long done = doneAt(call);
            if (!links || done == Long.MAX_VALUE) {
                break;
            }
            reach = Math.max(reach, done + 2 * lease);
            freedAt = done;
            first = false;
        }
        return reach;
    }

    /**
     * When {@code holder}'s attempt ended, its record completed or released, as far as the history knows:
     * its answer, unless its caller stopped listening first (a cancelled stage, an HTTP client that gave
     * up or timed out: the attempt went on), or it never answered; then never, as far as the history can tell. Where
     * the server saw the attempt end (over HTTP), that moment.
     */
    static long doneAt(CallRecord holder) {
        if (holder.attemptEndSeenByServer()) {
            return holder.attemptEndedAt();
        }
        boolean leftEarly = holder.cancelledAt() != 0 || SampleAttribution.abandoned(holder);
        return holder.answered() && !leftEarly ? holder.answeredAt() : Long.MAX_VALUE;
    }

    /**
     * On a key a holder in a child JVM held, the holder fault that explains one charge there: the retry
     * that took the key once the paused child's lease ran out (the child then charged as it resumed), or
     * once the killed child's marker expired (the child had charged). A fault that was not played in full
     * explains nothing, and neither does one whose child never charged: its line says it charged, or the
     * ledger holds a charge for the key that no call of this process made.
     */
    private static Event holderFault(NemesisHistory history, int key, List<CallRecord> calls, int ledgerCharges) {
        if (calls.stream().noneMatch(CallRecord::child)) {
            return null;
        }
        long inProcess = calls.stream().filter(call -> !call.child() && call.charged() != null).count();
        boolean childCharged = calls.stream().anyMatch(call -> call.child() && call.charged() != null)
                || ledgerCharges > inProcess;
        if (!childCharged) {
            return null;
        }
        return history.faults().stream()
                .filter(fault -> fault.key() == key && fault.injected() && fault.kind().onChildHolder())
                .map(fault -> new Event(Explanation.ofHolderFault(fault.kind()), null, "holder fault " + key,
                        fault.kind().id() + " at "
                        + NemesisChecker.millis(fault.startedAt()) + " of the child holding the key"))
                .findFirst().orElse(null);
    }

    /**
     * Whether {@code call} ran its action failing open: its outcome says so, or, for a call whose outcome
     * its caller never saw (a cancelled stage), the action's context had no fencing number. An answer of
     * another outcome outweighs the context: an EXECUTED call ran as the key's holder, whatever it was told.
     */
    static boolean failedOpen(CallRecord call) {
        return call.outcome() == Outcome.FAILED_OPEN || (call.outcome() == null && call.ranWithoutReservation());
    }

    /** Whether {@code call} ran its action holding a reservation: it left a lease another call could take over. */
    private static boolean reserved(CallRecord call) {
        return call.child() || (!failedOpen(call) && !call.ranWithoutReservation());
    }

    /**
     * A maximum matching of charges to events (an event, by its id, used once; Kuhn's augmenting paths),
     * tried from the latest charge back so that the earliest is the one left when one must be.
     */
    private static List<Event> match(List<List<Event>> candidates) {
        Map<String, Integer> owner = new HashMap<>();
        Event[] matched = new Event[candidates.size()];
        for (int i = candidates.size() - 1; i >= 0; i--) {
            augment(i, candidates, owner, matched, new HashSet<>());
        }
        return Arrays.asList(matched);
    }

    private static boolean augment(int charge, List<List<Event>> candidates, Map<String, Integer> owner,
                                   Event[] matched, Set<String> tried) {
        for (Event event : candidates.get(charge)) {
            if (!tried.add(event.id())) {
                continue;
            }
            Integer holder = owner.get(event.id());
            if (holder == null || augment(holder, candidates, owner, matched, tried)) {
                owner.put(event.id(), charge);
                matched[charge] = event;
                return true;
            }
        }
        return false;
    }
}
