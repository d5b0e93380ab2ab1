package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

/**
 * What may honestly explain a run of the action beyond the first on one key: the one place their
 * names are given, as the checker counts them and the report prints them.
 */
enum Explanation {

    /** The call ran its action failing open, counted, while a fault of the store was on or just over. */
    FAIL_OPEN("counted fail-open under a fault"),
    /**
     * The call ran its action failing open, counted, while no fault was injected but the run's stall
     * watch saw the store, or the machine, stall: counted apart, so that a run can say how much of what it
     * let stand only a stall explained.
     */
    FAIL_OPEN_IN_STALL("counted fail-open in an observed stall"),
    /** The call took the key over from a holder whose lease ran out while the store could not be reached. */
    TAKEOVER("key taken over after a lease of outage"),
    /** A fault broke a promise of the store on purpose meanwhile. */
    BROKEN_PROMISE("store promise broken on purpose"),
    /**
     * The key's holder in a child JVM (or the sample's JVM, which served it) was stopped past its lease; a
     * retry took the key, and the holder charged too.
     */
    HOLDER_PAUSED("holder paused past its lease"),
    /** The key's holder in a child JVM (or the sample's JVM) was killed during its action; a retry took the key after its lease. */
    HOLDER_KILLED("holder killed");

    private final String name;

    Explanation(String name) {
        this.name = name;
    }

    /** How the report names it. */
    String named() {
        return name;
    }

    /** How the report names it, with the fault that explains it: {@code store promise broken on purpose (clock-jump)}. */
    String named(FaultKind fault) {
        return name + " (" + fault.id() + ")";
    }

    /** What a holder fault of {@code kind} explains. */
    static Explanation ofHolderFault(FaultKind kind) {
        if (kind == FaultKind.PAUSE_HOLDER) {
            return HOLDER_PAUSED;
        }
        if (kind == FaultKind.KILL_HOLDER) {
            return HOLDER_KILLED;
        }
        throw new IllegalArgumentException(kind.id() + " is not a fault of a holder in a child JVM");
    }
}
