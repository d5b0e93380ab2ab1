package dev.idemlab.peers;

import dev.idemlab.provider.Charge;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One experiment run on one peer: every call, the provider's ledger after the last one, and the
 * verdict the two give. Immutable.
 *
 * @param experiment which experiment
 * @param peer the peer's name
 * @param version the library's version
 * @param wiring how the library was wired
 * @param store where it kept its records
 * @param calls every call, in start order
 * @param ledger the provider's ledger when the experiment ended
 * @param verdict what the ledger and the responses show
 * @param reason one sentence: why that verdict
 */
public record ExperimentResult(Experiment experiment, String peer, String version, String wiring, StoreKind store,
        List<Call> calls, List<Charge> ledger, Verdict verdict, String reason) {

    public ExperimentResult {
        Objects.requireNonNull(experiment, "experiment");
        Objects.requireNonNull(verdict, "verdict");
        calls = List.copyOf(calls);
        ledger = List.copyOf(ledger);
    }

    /** The result of an experiment the peer cannot take part in. */
    static ExperimentResult notSupported(Experiment experiment, PeerFactory factory, String reason) {
        return new ExperimentResult(experiment, factory.name(), "", "", factory.storeKind(), List.of(), List.of(),
                Verdict.NOT_SUPPORTED, reason);
    }

    /** The ledger's charge ids, in order. */
    public List<String> chargeIds() {
        return ledger.stream().map(Charge::id).toList();
    }

    /** The responses in call order, in their short form. */
    public List<String> responses() {
        return calls.stream().map(call -> call.response().brief()).toList();
    }

    /** One line in the post's shape: {@code responses=[ch_1, null]  charges made=[ch_1]}. */
    public String row() {
        if (verdict == Verdict.NOT_SUPPORTED) {
            return String.format("%-18s %-16s not supported: %s", peer, experiment.id(), reason);
        }
        return String.format("%-18s %-16s responses=%s  charges made=%s  -> %s", peer, experiment.id(),
                responses(), chargeIds(), verdict);
    }

    /** The row, then one line per call with its timing and full response, then the reason. */
    public String details() {
        String lines = calls.stream()
                .map(c -> String.format("  %s %s @%d-%d ms: %s", c.caller(), c.request(), c.startMs(), c.endMs(),
                        c.response()))
                .collect(Collectors.joining("\n"));
        String charges = ledger.stream()
                .map(c -> c.id() + "(" + c.orderId() + ", " + c.amount() + ")")
                .collect(Collectors.joining(", ", "  ledger: [", "]"));
        return row() + (calls.isEmpty() ? "" : "\n" + lines + "\n" + charges) + "\n  why: " + reason;
    }
}
