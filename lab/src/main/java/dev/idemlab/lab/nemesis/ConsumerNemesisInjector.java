package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.testsupport.TestKafka;
import dev.idemlab.lab.faults.FaultKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The consumer nemesis's injector: a thread that plays the schedule's faults one after the other on the
 * group ({@link ConsumerGroup}), the broker and the store ({@link NemesisTarget}), and records each as it
 * happened. Which child a fault hits, and whether a rebalance is a join or a leave, is drawn from the seed.
 * Stopping it lets the fault in progress end as usual (a stopped child is always continued). Thread-safe.
 */
final class ConsumerNemesisInjector {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerNemesisInjector.class);

    private final SplittableRandom random;
    private final List<FaultSchedule.Planned> schedule;
    private final NemesisTarget target;
    private final TestKafka kafka;
    private final ConsumerGroup group;
    private final List<ConsumerFault> faults;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean betweenFaults = true;
    private volatile long start;

    ConsumerNemesisInjector(long seed, List<FaultSchedule.Planned> schedule, NemesisTarget target, TestKafka kafka,
                            ConsumerGroup group, List<ConsumerFault> faults) {
        this.random = new SplittableRandom(seed ^ 0x6b61666b61L);
        this.schedule = schedule;
        this.target = target;
        this.kafka = kafka;
        this.group = group;
        this.faults = faults;
        this.thread = new Thread(this::injectAll, "consumer-nemesis");
        thread.setDaemon(true);
    }

    void start() {
        start = System.nanoTime();
        thread.start();
    }

    void stop() throws InterruptedException {
        stopping = true;
        if (betweenFaults) {
            thread.interrupt();
        }
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }

    private void injectAll() {
        for (FaultSchedule.Planned planned : schedule) {
            if (!FaultSchedule.awaitTurn(planned.atMillis(), start)) {
                return;
            }
            betweenFaults = false;
            if (stopping) {
                return;
            }
            Thread.interrupted();
            long began = ConsumerEvent.now();
            String[] who = {"-", ""};
            String failure = null;
            try {
                inject(planned.kind(), Duration.ofMillis(planned.lengthMillis()), who);
            } catch (Exception e) {
                failure = e.toString();
                LOG.warn("the consumer nemesis could not inject {} in full: {}", planned.kind().id(), failure);
            }
            faults.add(new ConsumerFault(planned.kind(), who[0], who[1], began, ConsumerEvent.now(), failure));
            betweenFaults = true;
            if (stopping) {
                return;
            }
        }
    }

    /** Injects one fault; {@code who} gets the member it hit and what it did. */
    private void inject(FaultKind kind, Duration length, String[] who) throws Exception {
        switch (kind) {
            case KILL_CONSUMER -> {
                ConsumerGroup.Child child = pick();
                who[0] = child.name();
                child.holder().kill();
                group.forget(child);
                NemesisTarget.hold(length);
                group.startChild();
                who[1] = "SIGKILL, a fresh child joined after " + length.toMillis() + " ms";
            }
            case PAUSE_CONSUMER -> {
                ConsumerGroup.Child child = pick();
                who[0] = child.name();
                long pause = Math.max(ConsumerNemesis.SESSION_TIMEOUT_MS, ConsumerNemesis.MAX_POLL_INTERVAL_MS)
                        + length.toMillis();
                who[1] = pause + " ms";
                ChildHolderPause.pause(child.holder(), pause);
            }
            case REBALANCE -> {
                boolean leave = group.inProcessMembers() >= 3 || group.inProcessMembers() > 1 && random.nextBoolean();
                String left = leave ? group.leave() : null;
                who[0] = left != null ? left : group.join();
                who[1] = left != null ? "left" : "joined";
                NemesisTarget.hold(length);
            }
            case RESTART_BROKER -> {
                who[1] = "broker";
                kafka.local().restart();
            }
            default -> target.inject(kind, length);
        }
    }

    private ConsumerGroup.Child pick() {
        List<ConsumerGroup.Child> children = group.children();
        if (children.isEmpty()) {
            throw new IllegalStateException("no consumer in a child JVM is running");
        }
        return children.get(random.nextInt(children.size()));
    }
}
