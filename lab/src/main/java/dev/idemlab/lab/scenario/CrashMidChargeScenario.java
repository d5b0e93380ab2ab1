package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * "The worst case is the old at-least-once behaviour for one request whose worker crashed": the
 * holder runs in a child JVM and is killed with SIGKILL after the provider charged and before it
 * completed the record. Its marker stays until the lease runs out (a retry meanwhile waits, or gets
 * 409 under raise); then the retry takes the key and charges again, unless the downstream key went
 * to a provider that deduplicates: then the provider hands back the first charge. The ledger lives
 * in the provider service, in the lab's own JVM, which survives the crash.
 */
public final class CrashMidChargeScenario extends ChildHolderScenario {

    private final boolean downstreamKey;

    public CrashMidChargeScenario(boolean downstreamKey) {
        this.downstreamKey = downstreamKey;
    }

    @Override
    public String name() {
        return "crash-mid-charge";
    }

    @Override
    public String summary() {
        return "the holder's JVM is killed after the provider charged, before the record was completed";
    }

    @Override
    public List<dev.idemlab.lab.policy.LabPolicy> policiesForAll() {
        return List.of(dev.idemlab.lab.policy.LabPolicy.WAIT);
    }

    @Override
    String label() {
        return "downstream key " + (downstreamKey ? "on" : "off");
    }

    @Override
    boolean mitigated() {
        return downstreamKey;
    }

    @Override
    FakePaymentProvider.Builder providerOptions(FakePaymentProvider.Builder provider) {
        return provider.deduplicateOnKey(downstreamKey);
    }

    @Override
    ChargeClient.Downstream downstream() {
        return downstreamKey ? ChargeClient.Downstream.CONTEXT_KEY : ChargeClient.Downstream.NONE;
    }

    @Override
    List<String> holderFlags() {
        return List.of("--hang-after-charge");
    }

    @Override
    String note() {
        return "the holder ran in a child JVM and was killed with SIGKILL right after the provider answered";
    }

    @Override
    List<CallerResult> stage(ChildHolder holder, ChargeClient retries, IdempotencyStore store, ScenarioProvider provider,
                             Timeline timeline, String key) throws InterruptedException {
        long start = timeline.nowMs();
        String charged = holder.await(HolderMain.CHARGED);
        int exit = holder.kill();
        List<CallerResult> callers = new ArrayList<>();
        callers.add(new CallerResult(HolderMain.CALLER, start, timeline.nowMs(), "killed after " + charged,
                "sigkill, exit " + exit, provider.client().chargeCount()));
        CallerResult retry = retries.charge("retry", key, ScenarioSettings.AMOUNT);
        callers.add(retry);
        if (retry.response().equals(FailureExpectations.IN_PROGRESS)) {
            awaitMarkerGone(store, ChargeClient.OPERATION + ":" + key);
            callers.add(retries.charge("retry after the lease", key, ScenarioSettings.AMOUNT));
        }
        return callers;
    }

    /** Polls the store until the dead holder's marker has expired, for at most ten leases. */
    private static void awaitMarkerGone(IdempotencyStore store, String namespace) {
        long deadline = System.nanoTime() + LEASE.multipliedBy(10).toNanos();
        while (store.lookup(namespace).isPresent() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }
}
