package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
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
 * counts from the child's reservation). A holder of the order workflow ({@code --effects local}) is
 * paused or killed at a step {@code boundary} instead ({@link OrderBook#BOUNDARIES}: a pause only
 * between transactions, a kill also inside {@code order_paid}'s). Drawn from the seed, so that the same
 * seed plans the same; the boundaries from a stream of their own, so that the other draws stay as
 * they were. Immutable.
 *
 * <p>Half the pauses of a charge's holder drawn by chance ({@link #failsAfterPause}, from a stream of its
 * own too), and every one the schedule added ({@link FaultSchedule.Planned#added}), end in a failed
 * action instead of a charge, as a provider call that timed out during a long GC pause
 * does: the woken holder then releases the key with the token of the reservation it lost. That release
 * must leave the caller who took the key over alone. So that a release that does not (one that ignores
 * its token) shows in the ledger, such a plan's retries run long enough to be still in flight when the
 * child wakes, and one more retry comes after the child's release: it must wait for the taker's answer,
 * and it charges a second time where the taker's reservation was removed under it.
 */
record HolderPlan(FaultKind kind, int key, long beforeChargeMillis, long afterChargeMillis, long pauseMillis,
                  boolean killAfterCharge, List<Workload.Caller> retries, String boundary, boolean failsAfterPause) {

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
        return draw(seed, schedule, firstKey, lease, false);
    }

    /**
     * As {@link #draw(long, FaultSchedule, int, Duration)}; for holders of the order workflow
     * ({@code workflows}) one more retry is planned after the drawn ones, the recovery: a synchronous
     * caller that waits, sent a quarter of a lease after the child's lease can have ended (the child
     * stopped at its boundary as it reserved, and a paused one stays stopped half a lease longer), so
     * that some caller takes the key over and resumes what the child left, whatever the draw.
     */
    static List<HolderPlan> draw(long seed, FaultSchedule schedule, int firstKey, Duration lease, boolean workflows) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x686f6c646572L);
        SplittableRandom boundaries = new SplittableRandom(seed ^ 0x626f756e64L);
        SplittableRandom failures = new SplittableRandom(seed ^ 0x6661696cL);
        long leaseMillis = lease.toMillis();
        List<HolderPlan> plans = new ArrayList<>();
        for (FaultSchedule.Planned planned : schedule.faults()) {
            if (!planned.kind().onChildHolder()) {
                continue;
            }
            boolean afterCharge = random.nextBoolean();
            long[] action = action(random, planned.kind() == FaultKind.KILL_HOLDER && afterCharge, leaseMillis);
            long before = action[0];
            long after = action[1];
            long pause = leaseMillis + leaseMillis / 2 + planned.lengthMillis();
            int count = MIN_RETRIES + random.nextInt(MAX_RETRIES - MIN_RETRIES + 1);
            List<Workload.Caller> retries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                retries.add(Workload.caller(random, 0, false, leaseMillis));
            }
            if (workflows) {
                retries.add(new Workload.Caller(leaseMillis + leaseMillis / 4, false, InFlightPolicy.WAIT,
                        StoreFailureMode.FAIL_CLOSED, 0, false, -1, false));
            }
            boolean pauseOfACharge = planned.kind() == FaultKind.PAUSE_HOLDER && !workflows;
            boolean drawnToFail = pauseOfACharge && failures.nextBoolean();
            boolean fails = drawnToFail || pauseOfACharge && planned.added();
            if (fails) {
                retries = outlastTheRelease(retries, Math.max(pause, before), leaseMillis);
            }
            // A pause inside order_paid's transaction would hold the record's lock, not let the lease run out.
            int stops = planned.kind() == FaultKind.PAUSE_HOLDER ? 2 : OrderBook.BOUNDARIES.size();
            plans.add(new HolderPlan(planned.kind(), firstKey + plans.size(), before, after, pause, afterCharge,
                    retries, OrderBook.BOUNDARIES.get(boundaries.nextInt(stops)), fails));
        }
        return plans;
    }

    /**
     * How long the child's action spends before and after its charge: charged early and then a long tail
     * where a kill should land after the charge, inside the action; else still before the charge when the
     * pause or the kill comes (at most the fault's length in).
     */
    private static long[] action(SplittableRandom random, boolean killAfterCharge, long leaseMillis) {
        if (killAfterCharge) {
            return new long[] {random.nextLong(leaseMillis / 3), leaseMillis + random.nextLong(leaseMillis)};
        }
        long before = leaseMillis + random.nextLong(leaseMillis);
        return new long[] {before, random.nextLong(200)};
    }

    /**
     * The retries of a holder that fails after its pause, which releases the key about
     * {@code releaseMillis} after it reserved: each made to run past that release, so that whoever took
     * the key over still holds it then, and a last one that waits, sent half a lease after the release.
     */
    private static List<Workload.Caller> outlastTheRelease(List<Workload.Caller> retries, long releaseMillis,
                                                           long leaseMillis) {
        long lateAt = releaseMillis + leaseMillis / 2;
        List<Workload.Caller> longer = new ArrayList<>(retries.size() + 1);
        for (Workload.Caller retry : retries) {
            long action = Math.max(retry.actionMillis(), lateAt + leaseMillis / 2);
            longer.add(new Workload.Caller(retry.atMillis(), retry.async(), retry.policy(), retry.onStoreFailure(),
                    action, retry.actionFails(), retry.cancelAfterMillis(), retry.otherBody()));
        }
        longer.add(new Workload.Caller(lateAt, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_CLOSED, 0, false,
                -1, false));
        return longer;
    }
}
