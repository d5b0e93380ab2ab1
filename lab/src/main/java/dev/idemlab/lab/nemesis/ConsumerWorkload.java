package dev.idemlab.lab.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The consumer nemesis's stream of charge records, drawn from the seed: {@code RATE} new keys a second
 * over the run, each sent to a partition drawn at random, and one key in {@link #DUPLICATE_ONE_IN} sent
 * again 0.2 to 3 s later (a producer's retry or a redelivery by an upstream service), to the same partition
 * or another; one record in {@link #SLOW_ONE_IN} has an action that outlives the members' poll interval,
 * so that the group takes its partition away while it is being handled. Immutable.
 */
final class ConsumerWorkload {

    /** New keys per second. */
    static final int RATE = 20;
    static final int DUPLICATE_ONE_IN = 6;
    static final int SLOW_ONE_IN = 40;

    /** One record to send: its key, amount, action time, partition, and when (ms into the run). */
    record Send(String key, long amount, long actionMillis, int partition, long atMillis, boolean again) { }

    private final List<Send> sends;
    private final int keys;

    private ConsumerWorkload(List<Send> sends, int keys) {
        this.sends = List.copyOf(sends);
        this.keys = keys;
    }

    /**
     * The stream for {@code seed} over {@code duration}, on {@code partitions} partitions; without
     * {@code slowRecords} (a run without faults) no action outlives the poll interval, and the draws stay the same.
     */
    static ConsumerWorkload draw(long seed, Duration duration, int partitions, int maxPollIntervalMs,
                                 boolean slowRecords) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x636f6e73756d6572L);
        List<Send> sends = new ArrayList<>();
        int keys = (int) Math.max(1, duration.toMillis() * RATE / 1000);
        for (int i = 0; i < keys; i++) {
            String key = "k-" + i;
            long amount = 100 + random.nextInt(9900);
            boolean slow = random.nextInt(SLOW_ONE_IN) == 0;
            long action = random.nextInt(20);
            if (slow && slowRecords) {
                action = maxPollIntervalMs + 500L;
            }
            long at = i * 1000L / RATE;
            int partition = random.nextInt(partitions);
            sends.add(new Send(key, amount, action, partition, at, false));
            if (random.nextInt(DUPLICATE_ONE_IN) == 0) {
                int again = random.nextBoolean() ? partition : random.nextInt(partitions);
                sends.add(new Send(key, amount, action, again, at + 200 + random.nextInt(2800), true));
            }
        }
        sends.sort(Comparator.comparingLong(Send::atMillis));
        return new ConsumerWorkload(sends, keys);
    }

    List<Send> sends() {
        return sends;
    }

    int keys() {
        return keys;
    }

    long duplicates() {
        return sends.stream().filter(Send::again).count();
    }
}
