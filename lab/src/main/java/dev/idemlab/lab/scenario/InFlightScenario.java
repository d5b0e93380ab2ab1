package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The post's first table: caller A charges; callers B..N send the identical request with the same
 * key while A is still inside the provider (at the retry time, 50 ms by default, against a 300 ms
 * provider). Under RUN the provider charges twice; under WAIT and RAISE once.
 */
public final class InFlightScenario implements Scenario {

    @Override
    public String name() {
        return "in-flight";
    }

    @Override
    public String summary() {
        return "a retry arrives while the first call is still inside the provider";
    }

    @Override
    public List<InFlightPolicy> policiesForAll() {
        return List.of(ScenarioSettings.ALL_POLICIES);
    }

    @Override
    public ScenarioRun run(ScenarioContext context, InFlightPolicy policy) throws InterruptedException {
        ScenarioSettings settings = context.settings();
        Timeline timeline = new Timeline();
        FakePaymentProvider provider = context.provider(timeline);
        try (IdempotencyStore store = context.backend().openStore()) {
            ChargeClient.warmUp(context, store);
            IdempotencyCoordinator coordinator = context.coordinator(store, policy);
            ChargeClient client = new ChargeClient(coordinator, provider, timeline);
            CallerResult[] results = new CallerResult[settings.callers()];
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < settings.callers(); i++) {
                int index = i;
                long arriveAtMs = i == 0 ? 0 : settings.retryAt().toMillis();
                Thread caller = new Thread(() -> {
                    sleepUntil(timeline, arriveAtMs);
                    results[index] = client.charge(callerName(index), settings.key(), ScenarioSettings.AMOUNT);
                }, callerName(i));
                caller.start();
                threads.add(caller);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            Map<String, Object> reported = context.reportedSettings();
            reported.put("retryAtMs", settings.retryAt().toMillis());
            reported.put("callers", settings.callers());
            return new ScenarioRun(name(), policyName(policy), label(policy), context.backend().server(), reported,
                    List.of(results), provider.chargeIds(), coordinator.stats().totalStorageErrors(), "",
                    timeline.events());
        }
    }

    /** Caller names: A, B, ..., Z, then C27, C28, ... */
    static String callerName(int index) {
        return index < 26 ? String.valueOf((char) ('A' + index)) : "C" + (index + 1);
    }

    static String policyName(InFlightPolicy policy) {
        return policy.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The post's name for each row. */
    static String label(InFlightPolicy policy) {
        return switch (policy) {
            case RUN -> "a result cache";
            case WAIT -> "the default";
            case RAISE -> "409 for the second";
        };
    }

    private static void sleepUntil(Timeline timeline, long atMs) {
        long left = atMs - timeline.nowMs();
        if (left > 0) {
            try {
                TimeUnit.MILLISECONDS.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
