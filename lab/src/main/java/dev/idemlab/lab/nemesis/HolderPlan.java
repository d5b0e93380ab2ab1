package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A fault played on a holder in a child JVM, as planned before the run: the fresh key the child
 * holds, how long its action spends before and after its charge (longer than the lease in all), how
 * long a pause lasts (longer than the lease) or whether a kill comes after the charge, and the
 * in-process retries of the same key, sent once the child holds it ({@link Workload.Caller#atMillis()}
 * counts from the child's reservation). Drawn from the seed, so that the same seed plans the same.
 * Immutable.
 */
record HolderPlan(FaultKind kind, int key, long beforeChargeMillis, long afterChargeMillis, long pauseMillis,
                  boolean killAfterCharge, List<Workload.Caller> retries) {

    private static final int MIN_RETRIES = 2;
    private static final int MAX_RETRIES = 5;

    HolderPlan {
        retries = List.copyOf(retries);
    }

    /**
     * One plan per holder fault of {@code schedule}, in its order, on keys from {@code firstKey} on
     * (keys the workload's own requests never use), drawn from {@code seed}.
     */
    static List<HolderPlan> draw(long seed, FaultSchedule schedule, int firstKey, Duration lease) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x686f6c646572L);
        long leaseMillis = lease.toMillis();
        List<HolderPlan> plans = new ArrayList<>();
        for (FaultSchedule.Planned planned : schedule.faults()) {
            if (!planned.kind().onChildHolder()) {
                continue;
            }
            boolean afterCharge = random.nextBoolean();
            long before;
            long after;
            if (planned.kind() == FaultKind.KILL_HOLDER && afterCharge) {
                // Charged early, then a long tail: the kill lands after the charge, inside the action.
                before = random.nextLong(leaseMillis / 3);
                after = leaseMillis + random.nextLong(leaseMillis);
            } else {
                // Still before the charge when the pause or the kill comes (at most the fault's length in).
                before = leaseMillis + random.nextLong(leaseMillis);
                after = random.nextLong(200);
            }
            long pause = leaseMillis + leaseMillis / 2 + planned.lengthMillis();
            int count = MIN_RETRIES + random.nextInt(MAX_RETRIES - MIN_RETRIES + 1);
            List<Workload.Caller> retries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                retries.add(Workload.caller(random, 0, false, leaseMillis));
            }
            plans.add(new HolderPlan(planned.kind(), firstKey + plans.size(), before, after, pause, afterCharge,
                    retries));
        }
        return plans;
    }
}
