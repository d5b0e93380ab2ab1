package dev.idemlab.lab.nemesis;

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
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a nemesis history, and only the history, against the coordinator's contract:
 *
 * <ul>
 *   <li>at most one run of the action that charges per key, unless every run beyond the first has an
 *       event of its own that explains it ({@link ExtraCharges}: its own counted fail-open under a store
 *       error the history shows, a takeover of a lease a fault ended, a record a store-wide fault really
 *       lost, a child holder's pause or kill), each event used once. With the provider deduplicating on
 *       the key the coordinator passes, the ledger must hold one charge per key, whatever explains the
 *       runs;</li>
 *   <li>every caller that got a charge got one the ledger holds for its key, made for the request it
 *       sent (a call that reused the key with another amount is refused, never answered with the stored
 *       result of another request, and a replay equals the answer of its own request);</li>
 *   <li>the fences of a key's reservations never repeat, and a reservation made after another holder
 *       answered has a greater fence;</li>
 *   <li>a reserve that failed but landed, whose caller failed open, is settled: no call sent after its
 *       marker was seen reserves the key and charges again once the store was calm enough for the settle
 *       ({@link SettledFailOpens});</li>
 *   <li>every call answered, and within its bound; no stage that was cancelled ran its action afterwards;</li>
 *   <li>and of a whole run ({@link #vacuity}): something was charged, and an answer named a charge.</li>
 * </ul>
 *
 * <p>Each violation carries its witness: the key's charges, what explains each or that nothing does, and
 * the faults around them. The ledger side is the load harness's {@link HistoryChecker}, fed the same
 * history. Stateless.
 */
final class NemesisChecker {

    private NemesisChecker() { }

    static NemesisVerdict check(NemesisHistory history) {
        Map<Integer, List<CallRecord>> byKey = new TreeMap<>();
        for (CallRecord call : history.calls()) {
            byKey.computeIfAbsent(call.key, key -> new ArrayList<>()).add(call);
        }
        Map<Integer, List<Charge>> chargesByKey = new HashMap<>();
        Map<String, Charge> charges = new HashMap<>();
        for (Charge charge : history.ledger()) {
            chargesByKey.computeIfAbsent(LoadKeys.indexOfOrder(charge.orderId()), k -> new ArrayList<>()).add(charge);
            charges.put(charge.id(), charge);
        }
        List<Violation> violations = new ArrayList<>();
        Map<String, Integer> explanations = new TreeMap<>();
        int explained = 0;
        for (Map.Entry<Integer, List<CallRecord>> entry : byKey.entrySet()) {
            int key = entry.getKey();
            List<CallRecord> calls = entry.getValue();
            List<String> ledger = chargesByKey.getOrDefault(key, List.of()).stream().map(Charge::id).toList();
            if (history.settings().downstreamKey() && moreThanOnePerRequest(history, chargesByKey.getOrDefault(key,
                    List.of()))) {
                violations.add(new Violation("duplicate-charge", key, ledger.size() + " charges " + ledger
                        + " although the provider deduplicates on the key the coordinator passes it: two calls "
                        + "passed different keys", witnessOf(history, calls, List.of())));
            } else if (!history.settings().localEffects()) {
                // A workflow's remote step is run again by design when its outcome was not recorded, under a
                // key of its own that the provider deduplicates on: there the ledger alone says what was charged.
                explained += chargeRule(history, key, calls, ledger, violations, explanations);
            }
            for (CallRecord call : calls) {
                callRules(call, charges, StoreFaults.stalledWithin(history, call.sentAt(),
                        call.answered() ? call.answeredAt() : call.sentAt()), violations);
            }
            fenceRules(key, calls, violations);
            violations.addAll(SettledFailOpens.check(history, key, calls));
        }
        return new NemesisVerdict(ledgerCheck(history), violations, explained, explanations);
    }

    /**
     * A run that charged nothing proves nothing: every rule above holds of a history whose calls all
     * failed (a path under test that refuses every request, a filter that throws on each), so such a run
     * is flagged rather than passed. Checked on a whole run, not on a hand-built history of a few calls.
     */
    static List<Violation> vacuity(NemesisHistory history) {
        List<CallRecord> calls = history.calls();
        boolean anyAnswerCharged = calls.stream().anyMatch(call -> call.chargeId() != null);
        if (calls.isEmpty() || (!history.ledger().isEmpty() && anyAnswerCharged)) {
            return List.of();
        }
        long failed = calls.stream().filter(call -> call.error() != null).count();
        java.util.Map<String, Long> errors = new TreeMap<>(calls.stream().filter(call -> call.error() != null)
                .collect(java.util.stream.Collectors.groupingBy(CallRecord::error, java.util.stream.Collectors.counting())));
        return List.of(new Violation("nothing-charged", calls.get(0).key, calls.size() + " calls sent, " + failed
                + " failed, " + history.ledger().size() + " charges in the ledger and no answer naming one: a run that "
                + "charges nothing (or answers no charge) tests nothing, so the path under test is taken to be broken",
                errors.isEmpty() ? List.of() : List.of("errors: " + errors)));
    }

    /**
     * Whether a key's charges, with the provider deduplicating, hold more than one: more than one for the
     * key, or with local effects more than one for one request (amount) of the key. There a request that
     * failed after its charge released the key like any failure, and another request on the key, with
     * another body, is that key's request from then on: its charge is its own, not a second of the first's.
     */
    private static boolean moreThanOnePerRequest(NemesisHistory history, List<Charge> charges) {
        if (!history.settings().localEffects()) {
            return charges.size() > 1;
        }
        return charges.stream().collect(java.util.stream.Collectors.groupingBy(Charge::amount,
                java.util.stream.Collectors.counting())).values().stream().anyMatch(count -> count > 1);
    }

    /** The key's charges beyond one, each explained by an event of its own; returns how many were explained. */
    private static int chargeRule(NemesisHistory history, int key, List<CallRecord> calls, List<String> ledger,
                                  List<Violation> violations, Map<String, Integer> explanations) {
        ExtraCharges.Explained explained = ExtraCharges.explain(history, key, calls, ledger);
        if (explained.extra() == 0) {
            return 0;
        }
        if (!explained.holds()) {
            int left = explained.unexplained().size() - 1;
            violations.add(new Violation("duplicate-charge", key, explained.charges().size() + " runs of the action, "
                    + "charges " + explained.charges().stream().map(ExtraCharges.Charged::charge).toList()
                    + ", and nothing explains " + (left == 1 ? "one of them" : left + " of them")
                    + " (an event explains one charge only)", witnessOf(history, calls, explained.witness())));
            return 0;
        }
        for (ExtraCharges.Event event : explained.counted()) {
            explanations.merge(event.named(), 1, Integer::sum);
        }
        return explained.extra();
    }

    private static void callRules(CallRecord call, Map<String, Charge> charges, long stalledNanos,
                                  List<Violation> violations) {
        if (!call.answered()) {
            violations.add(new Violation("no-answer", call.key, "call " + call.id + " (caller " + call.caller
                    + ") never answered" + (call.async ? ": its stage never completed" : "")));
            return;
        }
        Charge answer = call.chargeId() == null ? null : charges.get(call.chargeId());
        if (call.chargeId() != null && (answer == null || LoadKeys.indexOfOrder(answer.orderId()) != call.key)) {
            violations.add(new Violation("answer-not-in-ledger", call.key, "call " + call.id + " got "
                    + call.chargeId() + ", which the ledger does not hold for its key"));
        } else if (answer != null && answer.amount() != call.amount()) {
            violations.add(new Violation("answer-of-another-request", call.key, "call " + call.id + " asked for "
                    + call.amount() + " and got " + call.answer() + ", a charge of "
                    + answer.amount() + ": the stored result of another request on its key"));
        }
        long took = call.answeredAt() - call.sentAt();
        // The bound counts what the coordinator may spend; stalls seen while the call was out come on top,
        // and a call that hangs still outlives both.
        if (took > call.boundNanos + stalledNanos) {
            violations.add(new Violation("outlived-bound", call.key, String.format(Locale.ROOT,
                    "call %d took %.1f s, beyond its bound of %.1f s%s", call.id, took / 1e9, call.boundNanos / 1e9,
                    stalledNanos == 0 ? "" : String.format(Locale.ROOT, " and the %.1f s the store, the machine "
                            + "or the sample's JVM was stalled meanwhile", stalledNanos / 1e9))));
        }
        if (call.cancelledAt() != 0 && call.actionStartedAt() > call.cancelledAt()) {
            violations.add(new Violation("action-after-cancel", call.key, "call " + call.id + "'s stage was cancelled at "
                    + millis(call.cancelledAt()) + " and its action started at " + millis(call.actionStartedAt())));
        }
    }

    /**
     * Fences never repeat across a key's reservations, and a reservation whose action began after another
     * holder had answered (so after that holder's reservation) has the greater fence. Calls whose fence
     * the history does not know (a child's, or a run without a reservation) are left out.
     */
    private static void fenceRules(int key, List<CallRecord> calls, List<Violation> violations) {
        List<CallRecord> fenced = calls.stream().filter(call -> call.fence() > 0)
                .sorted(Comparator.comparingLong(CallRecord::actionStartedAt)).toList();
        for (int i = 0; i < fenced.size(); i++) {
            for (int j = i + 1; j < fenced.size(); j++) {
                CallRecord earlier = fenced.get(i);
                CallRecord later = fenced.get(j);
                boolean repeated = earlier.fence() == later.fence();
                boolean fellBack = later.fence() < earlier.fence() && earlier.answered()
                        && earlier.answeredAt() < later.actionStartedAt();
                if (repeated || fellBack) {
                    violations.add(new Violation(repeated ? "fence-repeated" : "fence-not-increasing", key,
                            "call " + earlier.id + " held fence " + earlier.fence() + " (action at "
                                    + millis(earlier.actionStartedAt()) + "), call " + later.id + " then held fence "
                                    + later.fence() + " (action at " + millis(later.actionStartedAt()) + ")"));
                }
            }
        }
    }

    /** The witness of a violation on a key: what explains each charge, then the store's faults around its calls. */
    private static List<String> witnessOf(NemesisHistory history, List<CallRecord> calls, List<String> charges) {
        List<String> witness = new ArrayList<>(charges);
        long lease = history.settings().lease().toNanos();
        long from = calls.stream().mapToLong(CallRecord::sentAt).min().orElse(0) - 2 * lease;
        long to = calls.stream().mapToLong(call -> Math.max(call.answeredAt(), call.actionStartedAt())).max()
                .orElse(0) + lease;
        history.faults().stream().filter(fault -> fault.overlaps(from, to)).forEach(fault -> witness.add("fault "
                + fault.kind().id() + " from " + millis(fault.startedAt()) + " to " + millis(fault.endedAt())
                + (fault.injected() ? "" : " (not injected: " + fault.failure() + ")")
                + (fault.key() >= 0 ? " on the child holding key " + fault.key() : "")));
        history.stalls().stream().filter(stall -> stall.startedAt() <= to && stall.endedAt() >= from)
                .forEach(stall -> witness.add("stall observed from " + millis(stall.startedAt()) + " to "
                        + millis(stall.endedAt())));
        if (witness.size() == charges.size()) {
            witness.add("no fault of the store and no stall within a lease of these calls");
        }
        return witness;
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
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
