package dev.idemlab.lab.faults;

/** Prints the fault vocabulary as a Markdown list, for the results pages: {@code java -cp lab.jar ...FaultKindList}. */
public final class FaultKindList {

    private FaultKindList() { }

    public static void main(String[] args) {
        for (FaultKind kind : FaultKind.values()) {
            System.out.println("* `" + kind.id() + "`: " + kind.what()
                    + (kind.breaksStorePromise() ? " (breaks a promise of the store on purpose)" : ""));
        }
    }
}
