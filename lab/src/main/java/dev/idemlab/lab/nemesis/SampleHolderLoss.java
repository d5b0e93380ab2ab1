package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether the JVM that served a holder (the Spring Boot sample's, which holds every key in flight) was
 * paused or killed under it, so that its lease honestly ran out and another call took its key: the
 * one place the checker reasons about a fault played on a whole JVM ({@link HolderFaults#EVERY_KEY}).
 * Such a fault explains one charge of another call on the key, made once the holder's lease can have
 * ended, and only for a holder that was in flight as the fault began (a client that gave up left its
 * request running) and that reserved the key (it made
 * a charge, under a reservation): a killed holder charged before the kill (its JVM made nothing after
 * it); a paused one before the pause, or once it was continued (its action resumed). The lease can end
 * no earlier than a lease after the holder was sent (its reserve came later) and, where no fault of the
 * store was near, a lease after its last heartbeat before the fault, which renewed within a heartbeat
 * interval (a third of the lease, the coordinator's default) and {@link LeaseLoss#BEAT_SLACK} of the
 * fault. Stateless.
 */
final class SampleHolderLoss {

    private SampleHolderLoss() { }

    /** The faults of the sample's JVM that explain {@code taker}'s charge after {@code holder}'s lease, one event each. */
    static List<ExtraCharges.Event> events(NemesisHistory history, CallRecord holder, CallRecord taker) {
        List<ExtraCharges.Event> events = new ArrayList<>();
        if (history.settings().through() != Through.SAMPLE) {
            return events; // elsewhere a holder fault is played on a child of its own key: ExtraCharges#holderFault
        }
        for (FaultEvent fault : history.faults()) {
            if (fault.key() != HolderFaults.EVERY_KEY || !fault.kind().onChildHolder() || !fault.injected()
                    || !heldThrough(history, fault, holder) || taker.actionStartedAt() < leaseEnd(history, fault, holder)) {
                continue;
            }
            String what = fault.kind() == FaultKind.KILL_HOLDER ? "killed" : "paused";
            events.add(new ExtraCharges.Event(Explanation.ofHolderFault(fault.kind()), null,
                    "sample " + fault.kind().id() + "@" + fault.startedAt() + " of " + holder.id,
                    "the sample's JVM " + what + " at " + NemesisChecker.millis(fault.startedAt()) + " while call "
                            + holder.id + " held the key; call " + taker.id + " ran after its lease"));
        }
        return events;
    }

    /**
     * Whether {@code holder} was in flight as {@code fault} began, and charged when its JVM let it. Still in
     * flight as the fault was issued is enough: the JVM a kill is ending resets its connections before the
     * kill is seen to have taken effect, and its callers' answers (a lost connection) can come in between.
     */
    static boolean heldThrough(NemesisHistory history, FaultEvent fault, CallRecord holder) {
        boolean inFlight = holder.sentAt() > 0 && holder.sentAt() <= fault.startedAt()
                && (!holder.answered() || holder.answeredAt() >= fault.issuedAt() || SampleAttribution.abandoned(holder));
        if (!inFlight) {
            return false;
        }
        boolean before = holder.actionStartedAt() <= fault.startedAt() + LeaseLoss.TICK;
        if (fault.kind() == FaultKind.KILL_HOLDER) {
            return before;
        }
        long lease = history.settings().lease().toNanos();
        return before || holder.actionStartedAt() >= fault.endedAt() - LeaseLoss.TICK
                && holder.actionStartedAt() <= fault.endedAt() + lease;
    }

    /** The earliest moment {@code holder}'s lease can have ended, its JVM stopped or dead from {@code fault} on. */
    private static long leaseEnd(NemesisHistory history, FaultEvent fault, CallRecord holder) {
        long lease = history.settings().lease().toNanos();
        long lastRenewal = holder.sentAt();
        boolean calm = !StoreFaults.storeFaulted(history, fault.startedAt() - lease - StoreFaults.RECOVERY,
                fault.startedAt());
        if (calm) {
            lastRenewal = Math.max(lastRenewal, fault.startedAt() - lease / 3 - LeaseLoss.BEAT_SLACK);
        }
        return lastRenewal + lease - LeaseLoss.TICK;
    }
}
