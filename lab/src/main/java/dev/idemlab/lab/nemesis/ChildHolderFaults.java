package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.lab.scenario.ChildHolder;
import dev.idemlab.lab.scenario.HolderMain;
import dev.idemlab.lab.scenario.StoreEndpoint;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.function.Consumer;

/**
 * The holder faults ({@code pause-holder}, {@code kill-holder}): each starts the failure lab's child-JVM
 * holder ({@link ChildHolder}, {@link HolderMain}) on its plan's fresh key, on the very records the
 * store under test holds and charging the run's provider over HTTP with the coordinator's downstream
 * key, as the in-process callers do. Once the child holds the key its in-process retries are sent; then
 * the child is stopped past its lease and continued, or killed during its action. The child's call is
 * written into its {@link CallRecord} from its lines. Under {@code --effects local} the child is a holder
 * of the order workflow instead ({@link WorkflowHolderMain}): it stops at its plan's step boundary, and is
 * killed there, or paused past its lease and let go on, while its retries resume what it left. The child
 * is reaped on every path (continued, killed, waited for) before the fault returns. Not thread-safe: the
 * nemesis plays one fault at a time.
 */
final class ChildHolderFaults implements HolderFaults {

    /** One holder fault's records: the child's call and its retries', written as the fault plays. */
    record Planned(HolderPlan plan, CallRecord child, List<CallRecord> retries) { }

    private final StoreEndpoint endpoint;
    private final String prefix;
    private final URI provider;
    private final Duration lease;
    private final long start;
    private final Queue<Planned> planned;
    private final Consumer<Planned> sendRetries;
    private final Runnable childAnswered;
    private final boolean workflows;

    /**
     * @param sendRetries sends a plan's retries, each at its time from now
     * @param childAnswered told once per child, whatever became of it
     * @param workflows whether the children hold the order workflow (stopped at a step boundary) rather
     *     than a charge
     */
    ChildHolderFaults(StoreEndpoint endpoint, String prefix, URI provider, Duration lease, long start,
                      List<Planned> planned, Consumer<Planned> sendRetries, Runnable childAnswered,
                      boolean workflows) {
        this.workflows = workflows;
        this.endpoint = endpoint;
        this.prefix = prefix;
        this.provider = provider;
        this.lease = lease;
        this.start = start;
        this.planned = new ArrayDeque<>(planned);
        this.sendRetries = sendRetries;
        this.childAnswered = childAnswered;
    }

    /**
     * Plays the next planned holder fault, which must be of {@code kind}; returns the key it held.
     *
     * @throws IllegalStateException when the fault could not be played in full: the child never held
     *     the key, or was not paused or killed as planned
     */
    @Override
    public int inject(FaultKind kind, Duration length, Runnable tookEffect) throws InterruptedException {
        // The fault's window opens as the child is started: its charges all come later, and the checker
        // reasons about this key's child alone.
        Planned next = planned.poll();
        if (next == null || next.plan().kind() != kind) {
            throw new IllegalStateException("no " + kind.id() + " was planned here");
        }
        CallRecord child = next.child();
        boolean retriesSent = false;
        child.sent(now());
        try (ChildHolder holder = workflows ? ChildHolder.start(endpoint, WorkflowHolderMain.class,
                workflowArgs(next.plan())) : ChildHolder.start(endpoint, args(next.plan()))) {
            String fence = holder.await(HolderMain.RESERVED);
            child.actionStarted(now(), !fence.startsWith("without"));
            sendRetries.accept(next);
            retriesSent = true;
            if (workflows) {
                WorkflowHolders.atBoundary(holder, child, next.plan(), this::now);
            } else if (kind == FaultKind.PAUSE_HOLDER) {
                pause(holder, next.plan());
                finish(holder, child, next.plan());
            } else {
                kill(holder, child, next.plan(), length);
            }
        } finally {
            if (!retriesSent) {
                sendRetries.accept(next); // the retries still run: as calls on a key no child holds
            }
            if (!child.answered()) {
                child.failed(now(), "holder lost");
            }
            childAnswered.run();
        }
        return next.plan().key();
    }

    /** SIGSTOP past the lease, then SIGCONT, also when the nemesis is told to stop meanwhile. */
    static void pause(ChildHolder holder, HolderPlan plan) {
        holder.signal("STOP");
        boolean stopped;
        try {
            NemesisTarget.hold(Duration.ofMillis(plan.pauseMillis()));
        } finally {
            stopped = Thread.interrupted(); // kill(1) must run to the end to continue the child
            holder.signal("CONT");
        }
        if (stopped) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("stopped during the pause: the holder was continued early");
        }
    }

    /**
     * After the pause: the child charges, completes (token-checked) and says what it got; or, where its
     * plan fails after the pause, its action fails, it releases (token-checked) and says so.
     */
    private void finish(ChildHolder holder, CallRecord child, HolderPlan plan) throws InterruptedException {
        try {
            if (!plan.failsAfterPause()) {
                child.charged(holder.await(HolderMain.CHARGED));
            }
            answered(child, holder.await(HolderMain.GOT));
        } catch (IllegalStateException lost) {
            // The fault was played; what became of the child afterwards is its call's answer.
            child.failed(now(), "holder lost after the pause");
        }
    }

    /** SIGKILL during the action: once it charged, or while it still waits to charge. */
    private void kill(ChildHolder holder, CallRecord child, HolderPlan plan, Duration length)
            throws InterruptedException {
        if (plan.killAfterCharge()) {
            child.charged(holder.await(HolderMain.CHARGED));
        } else {
            NemesisTarget.hold(length);
        }
        holder.kill();
        child.failed(now(), "killed (SIGKILL)");
    }

    private String[] args(HolderPlan plan) {
        int key = plan.key();
        List<String> args = new ArrayList<>(List.of(prefix, LoadKeys.key(key), Long.toString(lease.toMillis()),
                provider.toString(), "CONTEXT_KEY", "--operation", LoadKeys.OPERATION, "--order", LoadKeys.orderId(key),
                "--amount", Long.toString(LoadKeys.amount(key)),
                "--before-charge-ms", Long.toString(plan.beforeChargeMillis()),
                "--after-charge-ms", Long.toString(plan.afterChargeMillis())));
        if (plan.failsAfterPause()) {
            args.add("--fail-instead-of-charge");
        }
        return args.toArray(String[]::new);
    }

    private String[] workflowArgs(HolderPlan plan) {
        return new String[] {prefix, Integer.toString(plan.key()), Long.toString(lease.toMillis()), provider.toString(),
                plan.boundary()};
    }

    /** The child's {@code got RESPONSE OUTCOME}: a charge and how it came, or an error's class name. */
    private void answered(CallRecord child, String got) {
        String[] parts = got.trim().split(" ", 2);
        String outcome = parts.length > 1 ? parts[1].trim() : "error";
        Outcome how = null;
        try {
            how = Outcome.valueOf(outcome.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException notAnOutcome) {
            // "error": parts[0] is the exception's class name
        }
        if (how == null) {
            child.failed(now(), parts[0]);
        } else {
            child.answered(now(), parts[0], how);
        }
    }

    private long now() {
        return System.nanoTime() - start;
    }
}
