package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The nemesis's own schedule: which fault, when, for how long, drawn from the seed before the run
 * starts, among the faults the store under test can be given. One fault at a time; the pause between
 * two is random (one to three seconds), and so is each fault's length: 0.1 to 2.5 s, and one fault in
 * five a long outage of 2.5 to 4 s, past the coordinator's store patience (2 s), so that a complete
 * or a renewal keeps failing until the coordinator leaves it to the background. Immutable.
 */
final class FaultSchedule {

    /** One fault as planned: {@code kind} at {@code atMillis} into the run, held {@code lengthMillis}. */
    record Planned(FaultKind kind, long atMillis, long lengthMillis) { }

    private static final long MIN_GAP_MILLIS = 1000;
    private static final long MAX_GAP_MILLIS = 3000;
    private static final long MIN_LENGTH_MILLIS = 100;
    private static final long MAX_LENGTH_MILLIS = 2500;
    /** One fault in this many is a long outage, up to {@link #MAX_LONG_LENGTH_MILLIS}. */
    private static final int LONG_ONE_IN = 5;
    private static final long MAX_LONG_LENGTH_MILLIS = 4000;

    private final List<Planned> faults;

    private FaultSchedule(List<Planned> faults) {
        this.faults = List.copyOf(faults);
    }

    /**
     * Faults of {@code kinds} over {@code duration}, drawn from {@code seed} (mixed so that this schedule
     * is not the workload's own random sequence).
     */
    static FaultSchedule draw(long seed, Duration duration, List<FaultKind> kinds) {
        List<Planned> faults = new ArrayList<>();
        if (!kinds.isEmpty()) {
            SplittableRandom random = new SplittableRandom(seed ^ 0x6e656d65736973L);
            long at = random.nextLong(MIN_GAP_MILLIS, MAX_GAP_MILLIS);
            while (at < duration.toMillis()) {
                long length = random.nextInt(LONG_ONE_IN) == 0
                        ? random.nextLong(MAX_LENGTH_MILLIS, MAX_LONG_LENGTH_MILLIS)
                        : random.nextLong(MIN_LENGTH_MILLIS, MAX_LENGTH_MILLIS);
                faults.add(new Planned(kinds.get(random.nextInt(kinds.size())), at, length));
                at += length + random.nextLong(MIN_GAP_MILLIS, MAX_GAP_MILLIS);
            }
        }
        return new FaultSchedule(faults);
    }

    List<Planned> faults() {
        return faults;
    }
}
