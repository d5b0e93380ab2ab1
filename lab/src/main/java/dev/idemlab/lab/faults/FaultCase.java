package dev.idemlab.lab.faults;

import java.util.List;

/**
 * One case of the fault catalogue: it injects its fault for real on a store and reads the outcome off
 * the provider's ledger and the answers the callers got.
 */
interface FaultCase {

    int number();

    String fault();

    String injection();

    String invariant();

    /** The stores it runs on; "any" for a fault of the coordinator alone (run on memory). */
    List<String> stores();

    /** Injects the fault on {@code rig}'s store; returns what was observed and whether the invariant held. */
    Outcome run(FaultRig rig) throws Exception;

    /** What a run saw, and its verdict. */
    record Outcome(String observed, FaultRow.Verdict verdict) {
        static Outcome of(boolean holds, String observed) {
            return new Outcome(observed, holds ? FaultRow.Verdict.HOLDS : FaultRow.Verdict.VIOLATED);
        }

        boolean holds() {
            return verdict != FaultRow.Verdict.VIOLATED;
        }
    }
}
