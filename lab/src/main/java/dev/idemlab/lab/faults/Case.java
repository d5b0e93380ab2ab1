package dev.idemlab.lab.faults;

import java.util.List;

/** A fault case written as a body: the catalogue's columns and the code that injects the fault. */
record Case(int number, String fault, String injection, String invariant, List<String> stores, Body body)
        implements FaultCase {

    static final List<String> EVERY_STORE = List.of("memory", "redis", "postgres");
    static final List<String> ANY = List.of("any");
    static final List<String> NETWORK = List.of("redis", "postgres");

    /** The injection and the reading of the ledger. */
    @FunctionalInterface
    interface Body {
        Outcome run(FaultRig rig) throws Exception;
    }

    @Override
    public Outcome run(FaultRig rig) throws Exception {
        return body.run(rig);
    }
}
