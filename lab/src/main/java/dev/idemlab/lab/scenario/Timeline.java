package dev.idemlab.lab.scenario;

import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ProviderObserver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Records a scenario's messages as they happen, on whichever thread sends them; the provider's
 * side is recorded through its observer, and attributed to the caller thread it runs on.
 * Thread-safe.
 */
final class Timeline implements ProviderObserver {

    static final String COORDINATOR = "Coordinator";
    static final String PROVIDER = "Provider";
    static final String STORE = "Store";

    private volatile long startNanos = System.nanoTime();
    private final List<TimelineEvent> events = new ArrayList<>();
    /** Also hands every event here as it is recorded: how a child JVM reports its side. */
    private final java.util.function.Consumer<TimelineEvent> echo;

    Timeline() {
        this(event -> { });
    }

    Timeline(java.util.function.Consumer<TimelineEvent> echo) {
        this.echo = echo;
    }

    /** Restarts the clock: times are from now on. Called before anything is recorded. */
    void restart() {
        startNanos = System.nanoTime();
    }

    long nowMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    void record(String from, String to, String message, boolean reply) {
        TimelineEvent event = new TimelineEvent(nowMs(), from, to, message, reply);
        synchronized (events) {
            events.add(event);
        }
        echo.accept(event);
    }

    @Override
    public void callStarted(int callNumber, String orderId, long amount) {
        record(COORDINATOR, PROVIDER, "charge " + orderId + " " + amount + " (for " + caller() + ")", false);
    }

    @Override
    public void charged(int callNumber, Charge charge) {
        record(PROVIDER, COORDINATOR, charge.id() + " (for " + caller() + ")", true);
    }

    @Override
    public void timedOut(int callNumber, String orderId) {
        record(PROVIDER, COORDINATOR, "timeout, nothing charged (for " + caller() + ")", true);
    }

    @Override
    public void replayed(int callNumber, Charge charge) {
        record(PROVIDER, COORDINATOR, charge.id() + " again: deduplicated on the downstream key, no new charge (for "
                + caller() + ")", true);
    }

    @Override
    public void replyLost(int callNumber, Charge charge) {
        record(PROVIDER, COORDINATOR, "timeout, although " + charge.id() + " is in the ledger (for " + caller() + ")",
                true);
    }

    @Override
    public void refused(int callNumber, dev.idemlab.provider.ProviderException reason) {
        record(PROVIDER, COORDINATOR, "refused, nothing charged: " + reason.getClass().getSimpleName() + " (for "
                + caller() + ")", true);
    }

    /** Records a message that was sent at {@code atNanos} (by {@link System#nanoTime()}), seen after the fact. */
    void recordAt(long atNanos, String from, String to, String message, boolean reply) {
        TimelineEvent event = new TimelineEvent((atNanos - startNanos) / 1_000_000, from, to, message, reply);
        synchronized (events) {
            events.add(event);
        }
        echo.accept(event);
    }

    List<TimelineEvent> events() {
        synchronized (events) {
            List<TimelineEvent> copy = new ArrayList<>(events);
            copy.sort(Comparator.comparingLong(TimelineEvent::atMs));
            return copy;
        }
    }

    private static String caller() {
        String name = Thread.currentThread().getName();
        // Behind the HTTP service the provider runs on the server's threads: the caller is remote.
        return name.startsWith("provider-http") ? "a caller over HTTP"
                : name.startsWith("demo-http") ? "a request to the demo API" : name;
    }
}
