package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.scenario.ChildHolder;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.PaymentProvider;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The consumer nemesis's group: members in child JVMs ({@link ConsumerMemberMain}), whose lines are read
 * into the history, and members on threads of the lab's JVM. Members are named in the order they start
 * ({@code child-1}, {@code lab-1}, ...), never reused. {@link #close()} stops every member and reaps every
 * child, and may be called twice. Thread-safe.
 */
final class ConsumerGroup implements AutoCloseable {

    private static final long READY_SECONDS = 60;

    /** A member in a child JVM. */
    record Child(String name, ChildHolder holder) { }

    private record InProcess(String name, ConsumerMember member, Thread thread) { }

    private final ConsumerMember.Settings settings;
    private final IdempotencyStore store;
    private final PaymentProvider provider;
    private final StoreEndpoint endpoint;
    private final String prefix;
    private final URI providerUri;
    private final Consumer<String> history;
    private final List<Child> children = new ArrayList<>();
    private final List<InProcess> inProcess = new ArrayList<>();
    private int childCount;
    private int labCount;

    ConsumerGroup(ConsumerMember.Settings settings, IdempotencyStore store, PaymentProvider provider,
                  StoreEndpoint endpoint, String prefix, URI providerUri, Consumer<String> history) {
        this.settings = settings;
        this.store = store;
        this.provider = provider;
        this.endpoint = endpoint;
        this.prefix = prefix;
        this.providerUri = providerUri;
        this.history = history;
    }

    /** Starts {@code count} child members and waits until each polls. */
    void startChildren(int count) throws InterruptedException {
        List<CountDownLatch> ready = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ready.add(startChild());
        }
        for (CountDownLatch latch : ready) {
            if (!latch.await(READY_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a consumer's child JVM did not start polling within " + READY_SECONDS + " s");
            }
        }
    }

    /** Starts one child member; the latch opens once it polls. */
    synchronized CountDownLatch startChild() {
        String name = "child-" + (++childCount);
        ChildHolder holder = ChildHolder.start(endpoint, ConsumerMemberMain.class, name, settings.bootstrapServers(),
                settings.topic(), settings.group(), prefix, Long.toString(settings.lease().toMillis()),
                Integer.toString(settings.sessionTimeoutMs()), Integer.toString(settings.maxPollIntervalMs()),
                providerUri.toString(), settings.sabotage().name());
        children.add(new Child(name, holder));
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> read(holder, ready), "consumer-child-output-" + name);
        reader.setDaemon(true);
        reader.start();
        return ready;
    }

    private void read(ChildHolder holder, CountDownLatch ready) {
        while (true) {
            try {
                String line = holder.awaitAny("");
                if (line.equals(ConsumerMemberMain.READY)) {
                    ready.countDown();
                } else {
                    history.accept(line);
                }
            } catch (IllegalStateException silentOrGone) {
                if (!holder.isAlive()) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** A member on a thread of the lab's own joins the group. */
    synchronized String join() {
        String name = "lab-" + (++labCount);
        ConsumerMember member = new ConsumerMember(name, settings, store, provider, history);
        Thread thread = new Thread(member::run, "consumer-" + name);
        thread.setDaemon(true);
        thread.start();
        inProcess.add(new InProcess(name, member, thread));
        return name;
    }

    /** The last member of the lab's that joined leaves, unless it is the only one; returns its name, or {@code null}. */
    String leave() throws InterruptedException {
        InProcess leaving;
        synchronized (this) {
            if (inProcess.size() < 2) {
                return null;
            }
            leaving = inProcess.remove(inProcess.size() - 1);
        }
        leaving.member().stop();
        leaving.thread().join(TimeUnit.SECONDS.toMillis(30));
        return leaving.name();
    }

    synchronized int inProcessMembers() {
        return inProcess.size();
    }

    /** The children alive now, in the order they started. */
    synchronized List<Child> children() {
        return List.copyOf(children);
    }

    /** Forgets a child that was killed (the caller reaped it). */
    synchronized void forget(Child child) {
        children.remove(child);
    }

    synchronized int started() {
        return childCount + labCount;
    }

    /** Stops every member: the lab's leave the group, the children are told to stop, then reaped. */
    @Override
    public void close() throws InterruptedException {
        List<InProcess> threads;
        List<Child> childs;
        synchronized (this) {
            threads = List.copyOf(inProcess);
            childs = List.copyOf(children);
            inProcess.clear();
            children.clear();
        }
        try {
            for (Child child : childs) {
                try {
                    child.holder().send("stop");
                } catch (IllegalStateException gone) {
                    // already dead: reaped below
                }
            }
            threads.forEach(each -> each.member().stop());
            for (InProcess each : threads) {
                each.thread().join(TimeUnit.SECONDS.toMillis(30));
            }
            for (Child child : childs) {
                if (child.holder().isAlive()) {
                    try {
                        child.holder().awaitExit();
                    } catch (IllegalStateException stuck) {
                        // killed below
                    }
                }
            }
        } finally {
            childs.forEach(child -> child.holder().close());
        }
    }
}
