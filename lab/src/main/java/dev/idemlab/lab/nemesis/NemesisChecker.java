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

/**
 * Reads a nemesis history, and only the history, against the coordinator's contract:
 *
 * <ul>
 *   <li>at most one charge per key, unless the extra charges are explained: by a counted fail-open
 *       (the call's outcome says it ran without a reservation), by a counted lease loss of an earlier
 *       holder while a fault of the store was on (its outcome says so, or its caller cancelled the stage
 *       and so never saw it; and the key was taken over after it), or by
 *       a fault that broke a promise of the store on purpose; with the provider deduplicating on the key
 *       nothing explains a second charge;</li>
 *   <li>every caller that got a charge got one the ledger holds for its key (so replays equal the
 *       first answer: they name that key's only charge);</li>
 *   <li>every call answered, and within its bound;</li>
 *   <li>no stage that was cancelled ran its action afterwards.</li>
 * </ul>
 *
 * <p>The ledger side is the load harness's {@link HistoryChecker}, fed the same history. Stateless.
 */
final class NemesisChecker {

    private NemesisChecker() { }

    static NemesisVerdict check(NemesisHistory history) {
        Map<Integer, List<CallRecord>> byKey = new TreeMap<>();
        for (CallRecord call : history.calls()) {
            byKey.computeIfAbsent(call.key, key -> new ArrayList<>()).add(call);
        }
        Map<Integer, List<Charge>> chargesByKey = new HashMap<>();
        Map<String, Integer> keyOfCharge = new HashMap<>();
        for (Charge charge : history.ledger()) {
            int key = LoadKeys.index(charge.idempotencyKey());
            chargesByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(charge);
            keyOfCharge.put(charge.id(), key);
        }
        List<Violation> violations = new ArrayList<>();
        Map<String, Integer> explanations = new TreeMap<>();
        int explained = 0;
        for (Map.Entry<Integer, List<CallRecord>> entry : byKey.entrySet()) {
            int key = entry.getKey();
            List<CallRecord> calls = entry.getValue();
            int extra = chargesByKey.getOrDefault(key, List.of()).size() - 1;
            if (extra > 0) {
                String why = explanation(history, calls, extra);
                if (why == null) {
                    violations.add(new Violation("duplicate-charge", key, (extra + 1) + " charges "
                            + chargesByKey.get(key).stream().map(Charge::id).toList() + " and nothing explains "
                            + (extra == 1 ? "the second" : "them")));
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
     * Why a key was charged {@code extra} more times than once, or {@code null} when nothing the run
     * counted explains it. Never an explanation when the provider deduplicated on the key.
     */
    private static String explanation(NemesisHistory history, List<CallRecord> calls, int extra) {
        if (history.settings().downstreamKey()) {
            return null;
        }
        List<CallRecord> charging = calls.stream().filter(call -> call.charged() != null)
                .sorted(Comparator.comparingLong(CallRecord::actionStartedAt)).toList();
        int failedOpen = (int) charging.stream().filter(NemesisChecker::failedOpen).count();
        if (failedOpen >= extra) {
            return "counted fail-open";
        }
        int leaseLost = 0;
        for (int i = 0; i < charging.size() - 1; i++) {
            CallRecord earlier = charging.get(i);
            if ((earlier.outcome() == Outcome.LEASE_LOST || earlier.outcome() == null) && storeFaultDuring(history, earlier)) {
                leaseLost++;
            }
        }
        if (failedOpen + leaseLost >= extra) {
            return leaseLost > 0 ? "counted lease loss under a fault" : "counted fail-open";
        }
        if (!charging.isEmpty()) {
            long from = charging.get(0).actionStartedAt();
            long to = charging.get(charging.size() - 1).actionStartedAt();
            for (FaultEvent fault : history.faults()) {
                if (fault.kind().breaksStorePromise() && fault.injected() && fault.overlaps(from, to)) {
                    return "store promise broken on purpose (" + fault.kind().id() + ")";
                }
            }
        }
        return null;
    }

    /**
     * Whether {@code call} ran its action failing open: its outcome says so, or, for a call whose outcome
     * its caller never saw (a cancelled stage), the action's context had no fencing number. An answer of
     * another outcome outweighs the context: an EXECUTED call ran as the key's holder, whatever it was told.
     */
    private static boolean failedOpen(CallRecord call) {
        return call.outcome() == Outcome.FAILED_OPEN || (call.outcome() == null && call.ranWithoutReservation());
    }

    /** Whether a fault of the store was on while {@code holder}'s action ran. */
    private static boolean storeFaultDuring(NemesisHistory history, CallRecord holder) {
        long until = holder.answered() ? holder.answeredAt() : history.elapsedNanos();
        return history.faults().stream().anyMatch(fault -> fault.kind() != FaultKind.REJECT_RESUMPTIONS
                && fault.injected() && fault.overlaps(holder.actionStartedAt(), until));
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
        return HistoryChecker.check(policy, charges, history.ledger(), history.stats());
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
