package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;

/**
 * One call of the history: when it was sent and answered, what it got (a charge and how it was
 * produced, or an error), whether its stage was cancelled, and, from inside the action, when the
 * action started and which charge it made. Written by the caller's thread, the action's thread and
 * the canceller; each field once, and read after the run. Thread-safe.
 */
public final class CallRecord {

    final int id;
    final int key;
    final int caller;
    final boolean async;
    final InFlightPolicy policy;
    final StoreFailureMode onStoreFailure;
    final long boundNanos;
    /** Whether this is the call of a holder in a child JVM (a holder fault's), recorded from its lines. */
    final boolean child;
    private volatile dev.idemlab.lab.load.ErrorKind errorKind;
    private volatile long sentAt;
    private volatile long answeredAt;
    private volatile String chargeId;
    private volatile Outcome outcome;
    private volatile String error;
    private volatile long cancelledAt;
    private volatile long actionStartedAt;
    private volatile boolean actionStartBounded;
    private volatile String charged;
    private volatile boolean ranWithoutReservation;
    private volatile long fence;
    private volatile long amount;
    private volatile String order;
    private volatile long attemptEndedAt;
    private volatile long reserveSeenAt;
    private volatile long reserveLandedUntil;
    private volatile boolean followUp;

    CallRecord(int id, int key, int caller, boolean async, InFlightPolicy policy, StoreFailureMode onStoreFailure,
               long boundNanos) {
        this(id, key, caller, async, policy, onStoreFailure, boundNanos, false);
    }

    private CallRecord(int id, int key, int caller, boolean async, InFlightPolicy policy,
                       StoreFailureMode onStoreFailure, long boundNanos, boolean child) {
        this.child = child;
        this.id = id;
        this.key = key;
        this.caller = caller;
        this.async = async;
        this.policy = policy;
        this.onStoreFailure = onStoreFailure;
        this.boundNanos = boundNanos;
    }

    /** The call of a holder in a child JVM: synchronous, WAIT, failing open, as {@code HolderMain} calls. */
    static CallRecord ofChild(int id, int key, long boundNanos) {
        return new CallRecord(id, key, 0, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN, boundNanos, true);
    }

    void sent(long at) {
        sentAt = at;
    }

    void answered(long at, String charge, Outcome how) {
        chargeId = charge;
        outcome = how;
        answeredAt = at;
    }

    /** As {@link #answered(long, String, Outcome)}, the answer naming {@code order}, a row of the nemesis's orders. */
    void answered(long at, String charge, Outcome how, String order) {
        this.order = order;
        answered(at, charge, how);
    }

    void failed(long at, Throwable failure) {
        error = failure.getClass().getSimpleName();
        errorKind = dev.idemlab.lab.load.ErrorKind.of(failure);
        answeredAt = at;
    }

    /** The call ended in {@code error}, as a child reported it or as its end was seen (it was killed). */
    void failed(long at, String error) {
        this.error = error;
        answeredAt = at;
    }

    void cancelled(long at) {
        cancelledAt = at;
    }

    /** The action started at {@code at}, with a reservation whose fence is unknown, or with none (it ran failing open). */
    void actionStarted(long at, boolean fenced) {
        ranWithoutReservation = !fenced;
        actionStartedAt = at;
    }

    /**
     * The action started no later than {@code at} and no earlier than the call was sent, and the history
     * cannot say when in between: a layer whose server does not report its actions (the sample's) dates
     * one by its charge reaching the provider, which can come long after its reservation.
     */
    void actionStartedBy(long at, boolean fenced) {
        actionStarted(at, fenced);
        actionStartBounded = true;
    }

    /**
     * Whether {@link #actionStartedAt()} is only the latest the action can have started (see
     * {@link #actionStartedBy}): a reasoning about its lease must count from when the call was sent.
     */
    public boolean actionStartBounded() {
        return actionStartBounded;
    }

    /**
     * The action started at {@code at} with the reservation's {@code fence}, or with
     * {@link dev.idemlab.idempotency.IdempotencyContext#NO_FENCE} (it ran failing open).
     */
    void actionStarted(long at, long fence) {
        this.fence = fence;
        actionStarted(at, fence != dev.idemlab.idempotency.IdempotencyContext.NO_FENCE);
    }

    /** The call asks for {@code amount}, which is not its key's usual one: a reuse of the key with another body. */
    void asks(long amount) {
        this.amount = amount;
    }

    void charged(String charge) {
        charged = charge;
    }

    /**
     * The call's attempt ended at {@code at} where it ran, as the server saw it: over HTTP a client that
     * gave up has not stopped its request, whose attempt goes on, settles and renews without it.
     */
    void attemptEnded(long at) {
        attemptEndedAt = at;
    }

    /**
     * When the call's attempt ended where it ran (its record completed or released as far as the
     * coordinator went), where a server recorded it; else when the caller was answered, which is the same
     * moment for a call made in process; 0 while neither is known.
     */
    public long attemptEndedAt() {
        return attemptEndedAt != 0 ? attemptEndedAt : answeredAt;
    }

    /** Whether a server recorded when this call's attempt ended, which its caller may not have seen. */
    public boolean attemptEndSeenByServer() {
        return attemptEndedAt != 0;
    }

    /**
     * The call's own reserve, which failed as far as its caller was told, was seen on the server at
     * {@code at} (a reservation under its token), its lease ending no earlier than {@code until}
     * (see {@link LandedReserves}).
     */
    void reserveSeenLanded(long at, long until) {
        reserveSeenAt = at;
        reserveLandedUntil = until;
    }

    /** Marks this call as a follow-up of a landed fail-open ({@link FailOpenFollowUps}), which the workload did not plan. */
    void followsUp() {
        followUp = true;
    }

    /** Whether this call was sent as a follow-up of a landed fail-open, not planned by the workload. */
    public boolean followUp() {
        return followUp;
    }

    /** When this call's failed reserve was seen to have landed (see {@link #reserveLandedUntil()}); 0 where it was not. */
    public long reserveSeenAt() {
        return reserveSeenAt;
    }

    /**
     * The earliest moment the reservation of this call's failed reserve can have expired, where the run
     * saw that reserve land after all; 0 where it did not (it never landed, or nobody looked in time).
     */
    public long reserveLandedUntil() {
        return reserveLandedUntil;
    }

    public long sentAt() {
        return sentAt;
    }

    /** When the call answered, or 0 while it has not. */
    public long answeredAt() {
        return answeredAt;
    }

    public boolean answered() {
        return answeredAt != 0;
    }

    /** The charge the caller was given, or {@code null}. */
    public String chargeId() {
        return chargeId;
    }

    /** How the charge was produced, or {@code null} for an error. */
    public Outcome outcome() {
        return outcome;
    }

    /** The simple name of the error the caller got, or {@code null}. */
    public String error() {
        return error;
    }

    /** What the error means for the ledger, or {@code null} for an answer or an error of no such kind. */
    public dev.idemlab.lab.load.ErrorKind errorKind() {
        return errorKind;
    }

    /** When the stage was cancelled, or 0 for never. */
    public long cancelledAt() {
        return cancelledAt;
    }

    /** When this call's action started, or 0 when it never ran. */
    public long actionStartedAt() {
        return actionStartedAt;
    }

    /**
     * Whether the action ran without a reservation, as its context said (no fencing number): the
     * coordinator failed open, and counted it, whatever the caller got afterwards (a cancelled stage
     * hides its outcome).
     */
    public boolean ranWithoutReservation() {
        return ranWithoutReservation;
    }

    /**
     * The fencing number of the reservation this call's action ran under, or 0 when it ran without one or
     * the history does not know it (a holder in a child JVM).
     */
    public long fence() {
        return fence;
    }

    /**
     * The amount this call asked to charge: its key's usual amount, or another for a call that reuses the
     * key with another body (another fingerprint).
     */
    public long amount() {
        return amount != 0 ? amount : dev.idemlab.lab.load.LoadKeys.amount(key);
    }

    /** Whether this call reuses its key with another body than the key's usual request. */
    public boolean reusesKey() {
        return amount != 0 && amount != dev.idemlab.lab.load.LoadKeys.amount(key);
    }

    /** The order the answer named, where the run places orders (local effects), or {@code null}. */
    public String order() {
        return order;
    }

    /** The charge this call's action made, or {@code null}. */
    public String charged() {
        return charged;
    }

    /** Whether this is the call of a holder in a child JVM, which a holder fault paused or killed. */
    public boolean child() {
        return child;
    }

    /** The answer in one word: the charge and its outcome, or the error. */
    public String answer() {
        if (!answered()) {
            return "no answer";
        }
        return chargeId != null ? chargeId + " " + outcome.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                : error;
    }

    /** The HTTP client that sent this call ({@code anonymous} for none), or {@code null} for a call made in process. */
    private volatile String client;

    void sentBy(String name) {
        client = name;
    }

    /** The HTTP client that sent this call ({@code anonymous} for none), or {@code null} for a call made in process. */
    public String client() {
        return client;
    }
}
