package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The nemesis's generator of operations: a seeded schedule of logical requests, each a key shared by
 * 2 to 8 callers who send the identical request at random moments (most while the first is still
 * running, some after it answered), through {@code call} or {@code callAsync}, under WAIT or RAISE,
 * failing open or closed when the store fails; some asynchronous callers cancel their stage, and
 * a few send the key with another amount (a key reused for another request). Each caller that comes to hold the key runs an action
 * of its own length, some longer than the lease, some failing before they charge. Requests mostly
 * arrive apart (a Poisson stream), but now and then several keys arrive at one instant (a burst, as a
 * client that fans out sends them): their holders start their actions, and their heartbeats, together,
 * which is where a coordinator that batches its heartbeats can forget one of a batch. The schedule is
 * drawn whole before the run starts, so that the same seed gives the same schedule. Immutable.
 */
final class Workload {

    /** One caller of a logical request, as planned. */
    record Caller(long atMillis, boolean async, InFlightPolicy policy, StoreFailureMode onStoreFailure,
                  long actionMillis, boolean actionFails, long cancelAfterMillis, boolean otherBody) {

        /** Whether this caller cancels its stage, {@link #cancelAfterMillis} after sending it. */
        boolean cancels() {
            return cancelAfterMillis >= 0;
        }
    }

    /** A logical request: one key, and the callers who send it. */
    record Request(int key, long atMillis, List<Caller> callers) { }

    private static final int MIN_CALLERS = 2;
    private static final int MAX_CALLERS = 8;
    private static final long MEAN_GAP_MILLIS = 40;
    /** One gap in this many opens a burst: the requests after it arrive at one instant. */
    private static final int BURST_ONE_IN = 25;
    private static final int MIN_BURST = 3;
    private static final int MAX_BURST = 8;

    private final List<Request> requests;

    private Workload(List<Request> requests) {
        this.requests = List.copyOf(requests);
    }

    /** The requests of a run of {@code duration}, with actions measured against {@code lease}, drawn from {@code seed}. */
    static Workload draw(long seed, Duration duration, Duration lease) {
        SplittableRandom random = new SplittableRandom(seed);
        long leaseMillis = lease.toMillis();
        List<Request> requests = new ArrayList<>();
        long at = 0;
        int burstLeft = 0;
        for (int key = 0; at < duration.toMillis(); key++) {
            int callers = MIN_CALLERS + random.nextInt(MAX_CALLERS - MIN_CALLERS + 1);
            List<Caller> planned = new ArrayList<>(callers);
            for (int i = 0; i < callers; i++) {
                planned.add(caller(random, at, i == 0, leaseMillis));
            }
            requests.add(new Request(key, at, planned));
            if (burstLeft > 0) {
                burstLeft--;
                continue;
            }
            if (random.nextInt(BURST_ONE_IN) == 0) {
                burstLeft = MIN_BURST - 1 + random.nextInt(MAX_BURST - MIN_BURST + 1);
            }
            at += (long) (-Math.log(1 - random.nextDouble()) * MEAN_GAP_MILLIS);
        }
        return new Workload(requests);
    }

    /** One caller of a request sent at {@code requestAt}: the first of it, or one of its retries. */
    static Caller caller(SplittableRandom random, long requestAt, boolean first, long leaseMillis) {
        long offset;
        if (first) {
            offset = 0;
        } else if (random.nextInt(2) == 0) {
            offset = random.nextLong(100); // a retry while the first is surely in flight
        } else {
            offset = random.nextLong(leaseMillis * 2); // later: in flight, or after the answer
        }
        int length = random.nextInt(10);
        long actionMillis = length < 7 ? random.nextLong(30)
                : length < 9 ? 100 + random.nextLong(500)
                : leaseMillis + random.nextLong(leaseMillis); // outlives the lease: renewals must hold it
        boolean async = random.nextInt(5) < 2;
        long cancelAfter = async && random.nextInt(6) == 0 ? random.nextLong(actionMillis + 200) : -1;
        InFlightPolicy policy = random.nextInt(10) < 7 ? InFlightPolicy.WAIT : InFlightPolicy.RAISE;
        StoreFailureMode onStoreFailure = random.nextInt(3) == 0 ? StoreFailureMode.FAIL_CLOSED : StoreFailureMode.FAIL_OPEN;
        boolean fails = random.nextInt(12) == 0;
        // A retry that is no retry: the same key with another amount, which must be refused (or, on a key
        // no request holds any more, run as that key's one request), never answered with another's result.
        boolean otherBody = !first && random.nextInt(12) == 0;
        return new Caller(requestAt + offset, async, policy, onStoreFailure, actionMillis, fails, cancelAfter, otherBody);
    }

    List<Request> requests() {
        return requests;
    }

    /** How many calls the schedule sends. */
    int calls() {
        return calls(requests);
    }

    /** How many calls {@code requests} make in all. */
    static int calls(List<Request> requests) {
        return requests.stream().mapToInt(request -> request.callers().size()).sum();
    }
}
