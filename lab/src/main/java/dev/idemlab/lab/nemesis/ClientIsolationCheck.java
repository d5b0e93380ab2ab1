package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.load.ErrorKind;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules of a history whose calls name their clients (calls over HTTP), beside the checker's own,
 * which already holds per client and key since each pair has a key of its own in the history
 * ({@link HttpClients}). A client never receives what belongs to another:
 *
 * <ul>
 *   <li>{@code foreign-response}: a call answered with a charge the ledger holds for another client's
 *       order (a response stored for another client, replayed to this one);</li>
 *   <li>{@code foreign-refusal}: a call refused as a reuse of its key although every call of its client
 *       and key sent the same request (another client's request holds the key);</li>
 *   <li>{@code downstream-key-collision}: a call whose charge the provider refused while another client's
 *       request with the same key was charged and this client's order never was (the key handed
 *       downstream was not the client's own).</li>
 * </ul>
 *
 * A history without clients passes untouched. Stateless.
 */
final class ClientIsolationCheck {

    private ClientIsolationCheck() { }

    /** {@code verdict} with the violations of these rules in {@code history} added. */
    static NemesisVerdict addTo(NemesisVerdict verdict, NemesisHistory history) {
        List<Violation> found = check(history);
        if (found.isEmpty()) {
            return verdict;
        }
        List<Violation> all = new ArrayList<>(verdict.violations());
        all.addAll(found);
        return new NemesisVerdict(verdict.ledgerCheck(), all, verdict.explainedDuplicates(), verdict.explanations());
    }

    /** The violations of the rules of isolation between clients in {@code history}. */
    static List<Violation> check(NemesisHistory history) {
        if (history.calls().stream().allMatch(call -> call.client() == null)) {
            return List.of();
        }
        Map<String, Integer> keyOfCharge = new HashMap<>();
        for (Charge charge : history.ledger()) {
            keyOfCharge.put(charge.id(), LoadKeys.indexOfOrder(charge.orderId()));
        }
        Set<Integer> charged = Set.copyOf(keyOfCharge.values());
        Map<Integer, List<CallRecord>> byKey = history.calls().stream()
                .collect(Collectors.groupingBy(call -> call.key));
        List<Violation> violations = new ArrayList<>();
        for (CallRecord call : history.calls()) {
            if (call.client() == null) {
                continue;
            }
            Integer owner = call.chargeId() == null ? null : keyOfCharge.get(call.chargeId());
            if (owner != null && HttpClients.clientOf(owner) != HttpClients.clientOf(call.key)) {
                violations.add(new Violation("foreign-response", call.key, String.format(java.util.Locale.ROOT,
                        "call %d of %s got %s, the charge of another client's order %s",
                        call.id, call.client(), call.chargeId(), LoadKeys.orderId(owner))));
            }
            if (call.errorKind() == ErrorKind.KEY_REUSE && byKey.get(call.key).stream().noneMatch(CallRecord::reusesKey)) {
                violations.add(new Violation("foreign-refusal", call.key, "call " + call.id + " of " + call.client()
                        + " was refused as a reuse of its key, though every call of this client and key sent the "
                        + "same request: another client's request held it"));
            }
            if (HttpPath.PROVIDER_REFUSED.equals(call.error()) && !charged.contains(call.key)
                    && chargedForAnother(call.key, charged)) {
                violations.add(new Violation("downstream-key-collision", call.key, "call " + call.id + " of "
                        + call.client() + ": the provider refused its charge, and charged another client's "
                        + "request with the same key; this client's order was never charged"));
            }
        }
        return violations;
    }

    private static boolean chargedForAnother(int key, Set<Integer> charged) {
        int request = HttpClients.requestOf(key);
        return charged.stream().anyMatch(other -> other != key && HttpClients.requestOf(other) == request);
    }
}
