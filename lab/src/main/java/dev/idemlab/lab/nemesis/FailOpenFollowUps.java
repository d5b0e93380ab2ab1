package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The retries a settle is judged by. A call that failed open on a reserve that landed leaves a marker
 * the coordinator must complete with the call's result; whether it did shows only in a call on that key
 * sent after the settle, which then replays the charge instead of making another. The seeded workload
 * sends such a call by chance (its retries are drawn before the run, and a reserve lands only where a
 * fault drops its reply): on PostgreSQL a minute held a few landed fail-opens and no retry after their
 * settle, so a settle that released the marker, or never came, went unseen. So once {@link LandedReserves}
 * saw a failed-open call's reserve land, and that call was answered, this plans up to two more calls of
 * its request (its key and body): one {@link #AFTER_ANSWER} after the later of the answer and the
 * sighting, when the settle should have landed, if that is still within the marker's lease (later, the
 * key may be free before the settle gets through, and a call that takes it then charges honestly, and
 * keeps the key from the settle); and one {@link #AFTER_LEASE} after both the marker's lease and the
 * lease the settle tries for after the answer, when a marker left unsettled has expired and a settle
 * has landed or given up. Both wait for a holder and fail closed (a store that still fails makes them
 * charge nothing, and proves nothing either way): a marker released or left to expire lets them reserve
 * and charge again, which {@link SettledFailOpens} flags wherever the store gave the settle a calm.
 *
 * <p>What is planned is a function of the seed and of what the run saw (which reserves landed, when the
 * calls answered): the same landing gives the same follow-ups; only which reserves land depends on the
 * machine's timing. Each follow-up's action length is drawn from the seed and its key. The run waits for
 * every follow-up, planned or still to be planned, and every call sent as replies are lost
 * ({@link #awaitNone}), before it checks the history.
 * Thread-safe.
 */
final class FailOpenFollowUps implements LandedReserves.Watcher {

    /** After the later of the fail-open's answer and the sighting of its marker: time for a settle in a calm. */
    static final long AFTER_ANSWER = 2 * SettledFailOpens.SETTLE_CALM;
    /** After the marker's lease ends: a marker left unsettled has expired by then. */
    static final long AFTER_LEASE = SettledFailOpens.SETTLE_CALM;
    /** How long after the first call of {@link #raceAsRepliesAreLost} its retry is sent (ms): the post's client. */
    static final long RETRY_AFTER = 50;
    /** Mixed into the seed, so that the follow-ups' draws are not the workload's own sequence. */
    private static final long SALT = 0x666f6c6c6f77L;

    /** Sends one call as the run's layer does; {@code answered} runs once it answered. */
    @FunctionalInterface
    interface Sender {
        void send(Workload.Caller caller, CallRecord record, Runnable answered);
    }

    /** What is known of one watched call: whether its watch ended, and whether it answered. */
    private static final class Watch {
        boolean ended;
        boolean answered;
        boolean planned;
    }

    private final long seed;
    private final Callers callers;
    private final Duration bound;
    private final long leaseNanos;
    private final Map<CallRecord, Watch> watches = new ConcurrentHashMap<>();
    private final Queue<CallRecord> records = new ConcurrentLinkedQueue<>();
    private final Object counting = new Object();
    /** Follow-ups not answered yet, and watches not yet ended or whose call has not answered; guarded by {@link #counting}. */
    private int outstanding;
    /** Whether {@link #sendAsRepliesAreLost} still sends; guarded by {@link #counting}. */
    private boolean sendingAsRepliesAreLost = true;
    private volatile Sender sender;
    private volatile AtomicInteger nextId;

    /**
     * @param bound how long a follow-up may take before it counts as hung, beside its own action
     */
    FailOpenFollowUps(long seed, Callers callers, Duration lease, Duration bound) {
        this.seed = seed;
        this.callers = callers;
        this.leaseNanos = lease.toNanos();
        this.bound = bound;
    }

    /**
     * Starts planning: follow-ups are sent through {@code sender}, numbered from {@code firstId} on (past
     * the run's planned calls). Called before the run sends its first call.
     */
    void start(Sender sender, int firstId) {
        this.nextId = new AtomicInteger(firstId);
        this.sender = sender;
    }

    @Override
    public void watching(CallRecord call) {
        count(1);
        watches.put(call, new Watch());
    }

    @Override
    public void watchEnded(CallRecord call) {
        Watch watch = watches.get(call);
        if (watch != null) {
            synchronized (watch) {
                watch.ended = true;
            }
            planWhenKnown(call, watch);
        }
    }

    /** {@code call} was answered (every call of the run passes here; only watched ones matter). */
    void answered(CallRecord call) {
        Watch watch = watches.get(call);
        if (watch != null) {
            synchronized (watch) {
                watch.answered = true;
            }
            planWhenKnown(call, watch);
        }
    }

    /** Once the watch ended and the call answered: the follow-ups where its reserve landed, then the watch's count let go. */
    private void planWhenKnown(CallRecord call, Watch watch) {
        synchronized (watch) {
            if (!watch.ended || !watch.answered || watch.planned) {
                return;
            }
            watch.planned = true;
        }
        watches.remove(call);
        // Only a call that failed open leaves a marker to settle: one whose retry got the reservation holds it.
        if (call.reserveSeenAt() != 0 && call.outcome() == Outcome.FAILED_OPEN && call.chargeId() != null
                && sender != null) {
            long afterAnswer = Math.max(call.answeredAt(), call.reserveSeenAt()) + AFTER_ANSWER;
            long afterLease = Math.max(call.reserveLandedUntil(), call.answeredAt() + leaseNanos) + AFTER_LEASE;
            SplittableRandom random = new SplittableRandom(seed ^ SALT ^ ((long) call.key << 20) ^ call.id);
            if (afterAnswer < call.reserveLandedUntil()) {
                schedule(call, afterAnswer, random);
            }
            schedule(call, afterLease, random);
        }
        count(-1);
    }

    /**
     * Sends a call of its own on {@code key}, a fresh key, as {@code client}, now: told as a long loss of
     * replies reaches the point where its reserve lands and its caller hears nothing back
     * ({@link NemesisTarget#whenRepliesAreLost}). It fails open, and the settle of its marker is then judged
     * by its follow-ups with no other call of the key about, which is what a workload key, whose other
     * callers are out during the same fault, seldom gives (nothing else on the key could have written it).
     */
    void sendAsRepliesAreLost(int key, String client) {
        Workload.Caller caller = new Workload.Caller(0, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN, 0,
                false, -1, false);
        send(caller, key, 0, client);
    }

    /**
     * Sends two calls of one request on {@code key}, a fresh key, as {@code client}: one {@code delayMillis}
     * after a long loss of replies began, and its retry {@link #RETRY_AFTER} ms later while the first still
     * waits on the store (the post's race, in an outage). For a layer that fails closed whatever the workload drew (the
     * sample), recorded with its {@code policy} and {@code mode}: there neither may charge without a
     * reservation, so two charges are a violation, where a layer that failed open would have made both.
     * The store's own watch does not see such a layer's reserves, so no follow-ups are planned from them.
     */
    void raceAsRepliesAreLost(int key, String client, InFlightPolicy policy, StoreFailureMode mode, long delayMillis) {
        Workload.Caller caller = new Workload.Caller(0, false, policy, mode, 0, false, -1, false);
        later(delayMillis, () -> send(caller, key, 0, client));
        later(delayMillis + RETRY_AFTER, () -> send(caller, key, 1, client));
    }

    /** Runs {@code sending} after {@code delayMillis}, counted as outstanding meanwhile; nothing once sending stopped. */
    private void later(long delayMillis, Runnable sending) {
        synchronized (counting) {
            if (sender == null || !sendingAsRepliesAreLost) {
                return;
            }
            outstanding++;
        }
        callers.launcher().schedule(() -> {
            try {
                sending.run();
            } finally {
                count(-1);
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    /** Sends one call of {@link #sendAsRepliesAreLost}'s kind, counted until it answered; none once they stopped. */
    private void send(Workload.Caller caller, int key, int callerIndex, String client) {
        Sender to = sender;
        synchronized (counting) {
            if (to == null || !sendingAsRepliesAreLost) {
                return;
            }
            outstanding++;
        }
        CallRecord record = new CallRecord(nextId.getAndIncrement(), key, callerIndex, false, caller.policy(),
                caller.onStoreFailure(), bound.toNanos());
        record.sentBy(client);
        records.add(record);
        try {
            to.send(caller, record, () -> {
                answered(record);
                count(-1);
            });
        } catch (RuntimeException notSent) {
            count(-1);
            throw notSent;
        }
    }

    /**
     * No more calls of {@link #sendAsRepliesAreLost}: the run has its answers, and a fault still running as
     * the nemesis stops must not add a call nobody waits for. Follow-ups are still planned and sent.
     */
    void stopSendingAsRepliesAreLost() {
        synchronized (counting) {
            sendingAsRepliesAreLost = false;
        }
    }

    /** One follow-up of {@code call}'s request, sent at {@code at} on the run's clock. */
    private void schedule(CallRecord call, long at, SplittableRandom random) {
        Workload.Caller caller = new Workload.Caller(0, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_CLOSED,
                random.nextLong(30), false, -1, call.reusesKey());
        CallRecord record = new CallRecord(nextId.getAndIncrement(), call.key, call.caller, false, caller.policy(),
                caller.onStoreFailure(), bound.plusMillis(caller.actionMillis()).toNanos());
        record.followsUp();
        records.add(record);
        count(1);
        callers.launcher().schedule(() -> sender.send(caller, record, () -> count(-1)),
                Math.max(0, at - callers.now()), TimeUnit.NANOSECONDS);
    }

    private void count(int change) {
        synchronized (counting) {
            outstanding += change;
            if (outstanding == 0) {
                counting.notifyAll();
            }
        }
    }

    /**
     * Waits at most {@code timeout} until no follow-up is outstanding: none planned and unanswered, and no
     * watch that may still plan some.
     *
     * @return whether none is outstanding
     */
    boolean awaitNone(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (counting) {
            while (outstanding > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(counting, left);
            }
            return true;
        }
    }

    /** The follow-ups planned so far, sent or not. */
    List<CallRecord> records() {
        return List.copyOf(records);
    }
}
