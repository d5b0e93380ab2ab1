package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;

/**
 * The third lease-overrun variant: the holder is paused past its lease, the way a long GC pause or a
 * stopped VM pauses it. It runs in a child JVM, reserves (fence N), and is stopped with SIGSTOP
 * between its reservation and its charge; its heartbeat stops with it, so the lease runs out by the
 * store's clock. The client's retry takes the key (fence N+1) and charges. Then the holder gets
 * SIGCONT and charges with its old fence. A provider that checks fences refuses it: one charge.
 * Without the fence check the stale holder charges too: two.
 */
public final class PausedHolderScenario extends ChildHolderScenario {

    private final boolean fenceCheck;

    public PausedHolderScenario(boolean fenceCheck) {
        this.fenceCheck = fenceCheck;
    }

    @Override
    public String name() {
        return "lease-overrun";
    }

    @Override
    public String summary() {
        return "the holder is paused (SIGSTOP) past its lease, a retry takes the key, then the holder resumes";
    }

    @Override
    String label() {
        return "holder paused past the lease, fence check " + (fenceCheck ? "on" : "off");
    }

    @Override
    boolean mitigated() {
        return fenceCheck;
    }

    @Override
    FakePaymentProvider.Builder providerOptions(FakePaymentProvider.Builder provider) {
        return provider.checkFences(fenceCheck);
    }

    @Override
    ChargeClient.Downstream downstream() {
        return ChargeClient.Downstream.FENCE_ONLY;
    }

    @Override
    List<String> holderFlags() {
        return List.of("--gate");
    }

    @Override
    String note() {
        return "the holder ran in a child JVM, stopped with SIGSTOP after its reservation for twice its "
                + LEASE.toMillis() + " ms lease, then resumed with SIGCONT";
    }

    @Override
    List<CallerResult> stage(ChildHolder holder, ChargeClient retries, IdempotencyStore store, ScenarioProvider provider,
                             Timeline timeline, String key) throws InterruptedException {
        long start = timeline.nowMs();
        holder.await(HolderMain.RESERVED);
        holder.signal("STOP");
        CallerResult retry;
        try {
            letTimePass(LEASE.multipliedBy(2));
            retry = retries.charge("B", key, ScenarioSettings.AMOUNT);
        } finally {
            holder.proceed();
            holder.signal("CONT");
        }
        String got = holder.await(HolderMain.GOT);
        holder.awaitExit();
        return List.of(holderResult(HolderMain.CALLER, start, timeline, got, provider), retry);
    }
}
