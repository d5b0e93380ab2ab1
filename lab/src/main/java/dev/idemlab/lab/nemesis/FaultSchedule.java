package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The nemesis's own schedule: which fault, when, for how long, drawn from the seed before the run
 * starts, among the faults the store under test can be given. One fault at a time; the pause between
 * two is random (one to three seconds), and so is each fault's length: 0.1 to 2.5 s, and one fault in
 * five a long outage of 2.5 to 4 s, past the coordinator's store patience (2 s), so that a complete
 * or a renewal keeps failing until the coordinator leaves it to the background.
 *
 * <p>Where the store can lose replies ({@link FaultKind#DROP_REPLIES}), a long outage of that kind comes
 * at least every {@link #REPLY_LOSS_EVERY_MILLIS} and a fault more: the first fault drawn that long or
 * longer after the last one began (or after the run began) becomes one, 2.2 to 2.6 s long, and the next
 * fault comes no sooner than {@link #CALM_AFTER_LONG_LOSS_MILLIS} after it. It is the fault
 * that leaves a reserve landed on the server while its caller, told nothing, fails open, the case a
 * coordinator must settle (the run sends a call of its own as it begins: {@link FailOpenFollowUps}); drawn
 * by chance alone it came about once a minute or less, so a short run often met none. The draws stay the
 * same, so only that fault and the times of those after it change (and so the holders planned on them).
 *
 * <p>Where a charge's holder in a child JVM of its own can be paused ({@link FaultKind#PAUSE_HOLDER}),
 * likewise a fault drawn {@link #FIRST_HOLDER_PAUSE_MILLIS} or more into the run, and then one
 * {@link #HOLDER_PAUSE_EVERY_MILLIS} or more after the last it added, becomes a paused holder (as long as
 * drawn), one that fails as it wakes ({@link HolderPlan#failsAfterPause}): its release with the token it
 * lost is the only moment a
 * release that ignores its token removes another caller's reservation, and drawn by chance, one fault in a
 * dozen and then one pause in two, a run of a minute often had none. A fault due to become a loss of
 * replies stays one; the pause comes with the next.
 *
 * <p>Every long loss of replies, drawn or added, is followed by a calm of {@link #CALM_AFTER_LONG_LOSS_MILLIS}
 * at least: a reserve that landed as it began is settled in that calm, or never (its marker's lease runs out
 * under the next fault), and a run that met one such loss then had nothing to show.
 *
 * <p>Where every key is held by one service's JVM ({@link Holders#ONE_SERVICE}, the sample), a kill takes
 * the whole service down until it has started again, seconds in which every call is refused: a kill drawn
 * within {@link #SERVICE_KILL_EVERY_MILLIS} of the last one began becomes a fault of the store instead (of a
 * kind picked by its drawn length, no draw of its own; never a loss of replies, which could be long and move
 * the faults after it, nor one that breaks the store's promise), so that the service serves more of the run.
 * Immutable.
 */
final class FaultSchedule {

    /**
     * Sleeps until {@code atMillis} after {@code startNanos} (a {@link System#nanoTime()} reading), the moment
     * a planned fault is due; {@code false} when interrupted meanwhile, which is how an injector is stopped.
     */
    static boolean awaitTurn(long atMillis, long startNanos) {
        long wait = atMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        try {
            if (wait > 0) {
                Thread.sleep(wait);
            }
            return true;
        } catch (InterruptedException stopped) {
            return false;
        }
    }


    /**
     * One fault as planned: {@code kind} at {@code atMillis} into the run, held {@code lengthMillis};
     * {@code added} where the schedule chose its kind, not the draw.
     */
    record Planned(FaultKind kind, long atMillis, long lengthMillis, boolean added) { }

    /** Where the schedule's holder faults land, which decides what it adds and what it spaces out. */
    enum Holders {
        /** A child JVM of its own per charge: a paused holder can fail as it wakes, and the schedule adds such pauses. */
        CHILD_PER_CHARGE,
        /** Holders stopped at a step boundary (a workflow's) or members of a group: their faults as drawn. */
        AS_DRAWN,
        /** One service's JVM holds every key in flight (the sample's): its kills are spaced out. */
        ONE_SERVICE
    }

    private static final long MIN_GAP_MILLIS = 1000;
    private static final long MAX_GAP_MILLIS = 3000;
    private static final long MIN_LENGTH_MILLIS = 100;
    private static final long MAX_LENGTH_MILLIS = 2500;
    /** One fault in this many is a long outage, up to {@link #MAX_LONG_LENGTH_MILLIS}. */
    private static final int LONG_ONE_IN = 5;
    private static final long MAX_LONG_LENGTH_MILLIS = 4000;
    /** The shortest loss of replies that outlasts the coordinator's store patience (2 s), with a margin. */
    static final Duration LONG_OUTAGE = Duration.ofMillis(2200);
    /** How much longer than {@link #LONG_OUTAGE} a long loss of replies the schedule adds may be. */
    private static final long FORCED_SPREAD_MILLIS = 400;
    /**
     * The least pause after a long loss of replies, drawn or added: the store's recovery (1 s), then a
     * calm long enough for a settle to get through (750 ms), and a margin for a stall as the fault ends.
     */
    static final long CALM_AFTER_LONG_LOSS_MILLIS = 2500;
    /** From the start of a long {@link FaultKind#DROP_REPLIES} (or of the run), when the next fault becomes one. */
    static final long REPLY_LOSS_EVERY_MILLIS = 20_000;
    /**
     * When the first fault becomes a paused holder: early, so that even a run of 30 s sees the holder wake,
     * release and a late retry follow (a pause of about two leases, then half a lease).
     */
    static final long FIRST_HOLDER_PAUSE_MILLIS = 5_000;
    /** From the start of a paused holder the schedule added, when the next fault becomes one. */
    static final long HOLDER_PAUSE_EVERY_MILLIS = 20_000;
    /** Through one service's JVM: from the start of a kill of it, when the next can come. */
    static final long SERVICE_KILL_EVERY_MILLIS = 20_000;

    private final List<Planned> faults;

    private FaultSchedule(List<Planned> faults) {
        this.faults = List.copyOf(faults);
    }

    /**
     * Faults of {@code kinds} over {@code duration}, drawn from {@code seed} (mixed so that this schedule
     * is not the workload's own random sequence).
     */
    static FaultSchedule draw(long seed, Duration duration, List<FaultKind> kinds) {
        return draw(seed, duration, kinds, Holders.CHILD_PER_CHARGE);
    }

    /**
     * As {@link #draw(long, Duration, List)}, for holder faults played where {@code holders} says: only
     * where a paused holder can fail as it wakes (a charge's holder in a child JVM of its own) does the
     * schedule add pauses; a workflow's holder stops at a step boundary instead, and the sample's pause is
     * its whole JVM, whose kills are spaced out.
     */
    static FaultSchedule draw(long seed, Duration duration, List<FaultKind> kinds, Holders holders) {
        List<Planned> faults = new ArrayList<>();
        if (!kinds.isEmpty()) {
            SplittableRandom random = new SplittableRandom(seed ^ 0x6e656d65736973L);
            boolean losesReplies = kinds.contains(FaultKind.DROP_REPLIES);
            boolean pausesHolders = holders == Holders.CHILD_PER_CHARGE && kinds.contains(FaultKind.PAUSE_HOLDER);
            // What a kill drawn too soon becomes: a fault of the store that neither breaks its promise (that would
            // excuse more) nor loses replies (a long one would move every fault after it).
            List<FaultKind> storeKinds = kinds.stream().filter(StoreFaults::onStore)
                    .filter(kind -> !kind.breaksStorePromise() && kind != FaultKind.DROP_REPLIES).toList();
            boolean spacesKills = holders == Holders.ONE_SERVICE && !storeKinds.isEmpty();
            long lastReplyLoss = 0;
            long nextKill = 0;
            long nextHolderPause = FIRST_HOLDER_PAUSE_MILLIS;
            long at = random.nextLong(MIN_GAP_MILLIS, MAX_GAP_MILLIS);
            while (at < duration.toMillis()) {
                long length = random.nextInt(LONG_ONE_IN) == 0
                        ? random.nextLong(MAX_LENGTH_MILLIS, MAX_LONG_LENGTH_MILLIS)
                        : random.nextLong(MIN_LENGTH_MILLIS, MAX_LENGTH_MILLIS);
                FaultKind kind = kinds.get(random.nextInt(kinds.size()));
                boolean added = losesReplies && at - lastReplyLoss >= REPLY_LOSS_EVERY_MILLIS;
                boolean pause = !added && pausesHolders && at >= nextHolderPause;
                boolean spaced = false;
                if (added) {
                    kind = FaultKind.DROP_REPLIES;
                    length = longOutage(length);
                } else if (pause) {
                    kind = FaultKind.PAUSE_HOLDER;
                } else if (spacesKills && kind == FaultKind.KILL_HOLDER) {
                    if (at < nextKill) {
                        kind = storeKinds.get((int) (length % storeKinds.size()));
                        spaced = true;
                    } else {
                        nextKill = at + SERVICE_KILL_EVERY_MILLIS;
                    }
                }
                boolean longLoss = kind == FaultKind.DROP_REPLIES && length >= LONG_OUTAGE.toMillis();
                if (longLoss) {
                    lastReplyLoss = at;
                }
                if (pause) {
                    nextHolderPause = at + HOLDER_PAUSE_EVERY_MILLIS; // a pause drawn by chance may not fail
                }
                faults.add(new Planned(kind, at, length, added || pause || spaced));
                long gap = random.nextLong(MIN_GAP_MILLIS, MAX_GAP_MILLIS);
                at += length + (longLoss ? Math.max(gap, CALM_AFTER_LONG_LOSS_MILLIS) : gap);
            }
        }
        return new FaultSchedule(faults);
    }

    /**
     * The length of a long outage a stretch without one gets, made from a drawn {@code length} without a
     * draw of its own (the sequence stays as it was): 2.2 to 2.6 s, past the store patience but short enough
     * that the store is calm again while a settle of a reserve that landed as the outage began still tries.
     */
    private static long longOutage(long length) {
        return LONG_OUTAGE.toMillis() + length % FORCED_SPREAD_MILLIS;
    }

    List<Planned> faults() {
        return faults;
    }
}
