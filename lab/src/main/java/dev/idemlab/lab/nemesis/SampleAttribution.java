package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.load.ErrorKind;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which call of a run through the Spring Boot sample made each charge of the ledger, and when its action
 * started: the sample runs its actions in its own JVM and says neither, so the history is completed from
 * what the lab sees. A charge the sample answered as made for a request (201 without
 * {@code Idempotent-Replayed}) is that call's. A charge no call was given (its call failed after it
 * charged: the sample killed or paused, a client that gave up, a complete that failed) is given to one
 * call of its key that was in flight as the charge reached the provider (a client that gave up leaves
 * its request running), was not refused and got no charge itself, the earliest sent; when there is none it stays in the ledger only, and only a holder fault can explain it.
 * The action's start is when its charge reached the provider, which is no earlier than the truth (the
 * sample writes its order row first): a holder's late start makes its lease look longer, so a takeover
 * is excused no more readily than it should be. The fence stays unknown. In the sample's result-cache
 * mode no call holds a reservation: each action is marked as run without one. Stateless.
 */
final class SampleAttribution {

    private SampleAttribution() { }

    /**
     * Writes into {@code calls} the charge each made and when its action started.
     *
     * @param reserves whether the sample ran on the starter's reservation (not its result-cache mode)
     */
    static void attribute(List<CallRecord> calls, List<Charge> ledger, SampleCharges charges, boolean reserves) {
        Set<String> claimed = new HashSet<>();
        Map<String, Charge> byId = ledger.stream().collect(Collectors.toMap(Charge::id, charge -> charge,
                (first, second) -> first));
        for (CallRecord call : calls.stream().sorted(Comparator.comparingLong(CallRecord::answeredAt)).toList()) {
            String id = call.chargeId();
            if (id == null || call.outcome() != Outcome.EXECUTED || !byId.containsKey(id) || !claimed.add(id)) {
                continue;
            }
            mark(call, id, charges.reachedProvider(id), reserves);
        }
        for (Charge charge : ledger) {
            if (claimed.contains(charge.id())) {
                continue;
            }
            OptionalLong at = charges.reachedProvider(charge.id());
            if (at.isEmpty()) {
                continue;
            }
            int key = LoadKeys.indexOfOrder(charge.orderId());
            calls.stream().filter(call -> call.key == key && inFlightWithoutCharge(call, at.getAsLong()))
                    .min(Comparator.comparingLong(CallRecord::sentAt)).ifPresent(call -> {
                        claimed.add(charge.id());
                        mark(call, charge.id(), at, reserves);
                    });
        }
    }

    /**
     * Whether {@code call} was sent by {@code at}, was still running on the sample then, may have run the
     * action, and neither got nor made a charge. A call whose client stopped waiting (it gave up, or its
     * request timed out) ran on: HTTP has no cancel. A call refused as in flight or as a reuse of its key
     * never ran the action.
     */
    private static boolean inFlightWithoutCharge(CallRecord call, long at) {
        boolean abandoned = abandoned(call);
        boolean refused = call.errorKind() == ErrorKind.IN_PROGRESS || call.errorKind() == ErrorKind.KEY_REUSE;
        return call.sentAt() > 0 && call.sentAt() <= at && (!call.answered() || call.answeredAt() >= at || abandoned)
                && !refused && call.chargeId() == null && call.charged() == null;
    }

    /** Whether {@code call}'s client stopped waiting (gave up, or timed out) while its request ran on in the sample. */
    static boolean abandoned(CallRecord call) {
        return "client-gave-up".equals(call.error()) || "HttpTimeoutException".equals(call.error());
    }

    private static void mark(CallRecord call, String charge, OptionalLong reachedProvider, boolean reserves) {
        call.charged(charge);
        call.actionStartedBy(reachedProvider.orElse(call.sentAt()), reserves);
    }
}
