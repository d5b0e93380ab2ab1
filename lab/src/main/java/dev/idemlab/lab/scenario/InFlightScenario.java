package dev.idemlab.lab.scenario;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The post's first table: caller A charges; callers B..N send the identical request with the same
 * key while A is still inside the provider (at the retry time, 50 ms by default, against a 300 ms
 * provider). Under RUN the provider charges twice; under WAIT and RAISE once.
 */
public final class InFlightScenario extends StagedScenario {

    @Override
    public String name() {
        return "in-flight";
    }

    @Override
    public String summary() {
        return "a retry arrives while the first call is still inside the provider";
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return List.of(ScenarioSettings.ALL_POLICIES);
    }

    /** The post's name for each row. */
    @Override
    String label(LabPolicy policy) {
        return switch (policy) {
            case RUN -> "a result cache";
            case WAIT -> "the default";
            case RAISE -> "409 for the second";
        };
    }

    @Override
    void reportSettings(ScenarioSettings settings, Map<String, Object> reported) {
        reported.put("retryAtMs", settings.retryAt().toMillis());
        reported.put("callers", settings.callers());
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings)
            throws InterruptedException {
        long startNanos = System.nanoTime();
        CallerResult[] results = new CallerResult[settings.callers()];
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < settings.callers(); i++) {
            int index = i;
            long arriveAtNanos = startNanos + (i == 0 ? 0 : settings.retryAt().toNanos());
            Thread caller = new Thread(() -> {
                sleepUntil(arriveAtNanos);
                results[index] = client.charge(callerName(index), settings.key(), ScenarioSettings.AMOUNT);
            }, callerName(i));
            caller.start();
            callers.add(caller);
        }
        for (Thread caller : callers) {
            caller.join();
        }
        return Arrays.asList(results);
    }

    /** Caller names: A, B, ..., Z, then C27, C28, ... */
    static String callerName(int index) {
        return index < 26 ? String.valueOf((char) ('A' + index)) : "C" + (index + 1);
    }

    private static void sleepUntil(long atNanos) {
        long left = atNanos - System.nanoTime();
        if (left > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
