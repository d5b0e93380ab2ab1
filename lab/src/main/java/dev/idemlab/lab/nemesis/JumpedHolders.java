package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.lab.faults.FaultKind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Requests planned around each clock jump of a schedule, on fresh keys, so that a holder whose lease the
 * jump ended is sure to let go of the key afterwards while another caller holds it. A holder in a child
 * JVM paused past its lease plays that on the stores another process can reach ({@link HolderPlan});
 * the in-memory store, which only this process reaches, has the clock jump instead, and without these
 * requests a holder that fails after a jump was left to the workload's chance.
 *
 * <p>Per jump at T, with lease L: the holder is sent at T - L/2 and its action runs L + L/4, then fails,
 * so the coordinator releases the key with the token of a reservation the jump expired; two callers who
 * wait are sent at T + L/4, one of whom takes the expired key over and holds it for three leases; a last
 * caller who waits comes at T + L, after the release. The release must leave the taker's reservation
 * alone: the last caller then waits for the taker's answer. Where a release ignores its token, the last
 * caller finds the key free and charges a second time, and nothing the history holds explains that.
 */
final class JumpedHolders {

    private JumpedHolders() { }

    /** One request per clock jump of {@code schedule} that comes half a lease into the run or later, keys from {@code firstKey} on. */
    static List<Workload.Request> plan(FaultSchedule schedule, int firstKey, Duration lease) {
        long leaseMillis = lease.toMillis();
        List<Workload.Request> requests = new ArrayList<>();
        for (FaultSchedule.Planned fault : schedule.faults()) {
            if (fault.kind() != FaultKind.CLOCK_JUMP || fault.atMillis() < leaseMillis / 2) {
                continue;
            }
            long jump = fault.atMillis();
            long sent = jump - leaseMillis / 2;
            List<Workload.Caller> callers = List.of(
                    waiting(sent, leaseMillis + leaseMillis / 4, true),
                    waiting(jump + leaseMillis / 4, 3 * leaseMillis, false),
                    waiting(jump + leaseMillis / 4, 3 * leaseMillis, false),
                    waiting(jump + leaseMillis, 0, false));
            requests.add(new Workload.Request(firstKey + requests.size(), sent, callers));
        }
        return requests;
    }

    private static Workload.Caller waiting(long atMillis, long actionMillis, boolean fails) {
        return new Workload.Caller(atMillis, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_CLOSED, actionMillis,
                fails, -1, false);
    }
}
