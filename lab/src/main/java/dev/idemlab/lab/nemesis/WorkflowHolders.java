package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.scenario.ChildHolder;
import dev.idemlab.lab.scenario.HolderMain;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The holder faults of {@code --effects local}, once the child holds its key: it runs its order
 * workflow up to its plan's step boundary and stops there; it is killed (SIGKILL) there, or paused
 * (SIGSTOP) past its lease, continued and let go on, which its lost lease should stop at its next step.
 * What it did is written into its call from its lines: the charge it made, and its answer with the order
 * it names, which the orders table must then show. Stateless.
 */
final class WorkflowHolders {

    private WorkflowHolders() { }

    /**
     * Plays {@code plan}'s fault on {@code holder}, whose call is {@code child}, at its boundary.
     *
     * @throws IllegalStateException when the child never reached its boundary
     */
    static void atBoundary(ChildHolder holder, CallRecord child, HolderPlan plan, LongSupplier now)
            throws InterruptedException {
        String line = holder.awaitAny(WorkflowHolderMain.AT, HolderMain.CHARGED);
        if (line.startsWith(HolderMain.CHARGED)) {
            child.charged(line.substring(HolderMain.CHARGED.length()).trim());
            holder.await(WorkflowHolderMain.AT);
        }
        if (plan.kind() == FaultKind.KILL_HOLDER) {
            holder.kill();
            child.failed(now.getAsLong(), "killed (SIGKILL) at " + plan.boundary());
            return;
        }
        ChildHolderFaults.pause(holder, plan);
        holder.proceed();
        try {
            String next = holder.awaitAny(HolderMain.CHARGED, HolderMain.GOT);
            if (next.startsWith(HolderMain.CHARGED)) {
                child.charged(next.substring(HolderMain.CHARGED.length()).trim());
                next = holder.awaitAny(HolderMain.GOT);
            }
            answered(child, next.substring(HolderMain.GOT.length()), now.getAsLong());
        } catch (IllegalStateException lost) {
            // The fault was played; what became of the child afterwards is its call's answer.
            child.failed(now.getAsLong(), "holder lost after the pause");
        }
    }

    /** The child's {@code got CHARGE OUTCOME ORDER}, or {@code got EXCEPTION error}. */
    static void answered(CallRecord child, String got, long at) {
        String[] parts = got.trim().split(" ");
        Outcome how = null;
        if (parts.length == 3) {
            try {
                how = Outcome.valueOf(parts[1].toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException notAnOutcome) {
                // an error: parts[0] is the exception's class name
            }
        }
        if (how == null) {
            child.failed(at, parts[0]);
        } else {
            child.answered(at, parts[0], how, parts[2]);
        }
    }
}
