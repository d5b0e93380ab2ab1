package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * "The lease has to outlive the slowest honest attempt": caller A's charge takes 2.5 leases; caller
 * B sends the identical request once A's lease would have run out (1.5 leases after A entered the
 * provider; the store decides expiry by its own clock, so real time passes). With the heartbeat off
 * (renewals dropped) the marker expires under A, B takes the key and charges too: two charges,
 * two different answers. With the heartbeat on, A's lease is renewed while it works and B waits
 * (or gets 409 under raise): one charge. The paused holder, the third variant, is
 * {@link PausedHolderScenario}.
 */
public final class LeaseOverrunScenario extends StagedScenario {

    /** The lease of this scenario: short, so that the overrun fits in a check. */
    static final Duration LEASE = Duration.ofSeconds(1);
    /** A's charge: longer than the lease. */
    static final Duration SLOW_CHARGE = LEASE.multipliedBy(5).dividedBy(2);
    /** When B arrives after A entered the provider: past A's lease. */
    static final Duration RETRY_AFTER = LEASE.multipliedBy(3).dividedBy(2);
    static final Duration FAST_CHARGE = Duration.ofMillis(100);

    private final boolean heartbeat;
    private final CountDownLatch holderInside = new CountDownLatch(1);

    public LeaseOverrunScenario(boolean heartbeat) {
        this.heartbeat = heartbeat;
    }

    @Override
    public String name() {
        return "lease-overrun";
    }


    /** Its timing is its own: the failure it stages needs it. */
    @Override
    public List<String> fixedOptions() {
        return List.of("--latency-ms", "--lease-s");
    }

    @Override
    public String summary() {
        return "the holder's charge takes longer than the lease, and a retry arrives after the lease";
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return List.of(LabPolicy.WAIT, LabPolicy.RAISE);
    }

    @Override
    String label(LabPolicy policy) {
        return heartbeat ? "heartbeat on" : "heartbeat off";
    }

    @Override
    FakePaymentProvider.Builder providerOptions(FakePaymentProvider.Builder provider) {
        return provider.latency(call -> {
            if (call == 1) {
                holderInside.countDown();
                TimeUnit.NANOSECONDS.sleep(SLOW_CHARGE.toNanos());
            } else {
                TimeUnit.NANOSECONDS.sleep(FAST_CHARGE.toNanos());
            }
        });
    }

    @Override
    IdempotencyConfig.Builder configure(IdempotencyConfig.Builder config) {
        return config.lease(LEASE).waitTimeout(SLOW_CHARGE.multipliedBy(4));
    }

    @Override
    IdempotencyStore storeUnderTest(IdempotencyStore recorded, Timeline timeline) {
        return heartbeat ? recorded : new DroppedRenewals(recorded, timeline);
    }

    @Override
    void reportSettings(ScenarioSettings settings, Map<String, Object> reported) {
        reported.put("leaseMs", LEASE.toMillis());
        reported.put("latencyMs", SLOW_CHARGE.toMillis());
        reported.put("retryAfterMs", RETRY_AFTER.toMillis());
        reported.put("heartbeat", heartbeat ? "on" : "off");
        reported.put("mitigated", heartbeat);
    }

    @Override
    String note() {
        return "A's charge takes " + SLOW_CHARGE.toMillis() + " ms against a " + LEASE.toMillis() + " ms lease; B arrives "
                + RETRY_AFTER.toMillis() + " ms after A entered the provider";
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings)
            throws InterruptedException {
        CallerResult[] results = new CallerResult[2];
        Thread a = new Thread(() -> results[0] = client.charge("A", settings.key(), ScenarioSettings.AMOUNT), "A");
        a.start();
        List<Thread> callers = new ArrayList<>(List.of(a));
        if (holderInside.await(30, TimeUnit.SECONDS)) {
            TimeUnit.NANOSECONDS.sleep(RETRY_AFTER.toNanos()); // real time: the store's clock decides expiry
            Thread b = new Thread(() -> results[1] = client.charge("B", settings.key(), ScenarioSettings.AMOUNT), "B");
            b.start();
            callers.add(b);
        }
        for (Thread caller : callers) {
            caller.join();
        }
        return results[1] == null ? List.of(results[0]) : List.of(results);
    }
}
