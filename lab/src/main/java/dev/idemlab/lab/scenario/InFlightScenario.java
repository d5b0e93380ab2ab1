package dev.idemlab.lab.scenario;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

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
    public String cannotCallThroughProxy() {
        return null;
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

    /**
     * Every caller's thread is created and parked before the clock starts; A is released at 0 and
     * B..N at the retry time, each unparked directly by this thread (a latch would wake them one
     * after another, each waking the next). So the retries wait neither on thread creation nor on
     * each other while A runs; on an overloaded machine some may still start late, which the run
     * then reports (see {@link #lateCallers}).
     */
    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings)
            throws InterruptedException {
        int count = settings.callers();
        CallerResult[] results = new CallerResult[count];
        CountDownLatch parked = new CountDownLatch(count);
        AtomicBoolean firstGo = new AtomicBoolean();
        AtomicBoolean retriesGo = new AtomicBoolean();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int index = i;
            AtomicBoolean go = i == 0 ? firstGo : retriesGo;
            Thread caller = new Thread(() -> {
                parked.countDown();
                while (!go.get()) {
                    LockSupport.park(go);
                    if (Thread.currentThread().isInterrupted()) {
                        return; // the run was called off before this caller's time: it never calls
                    }
                }
                results[index] = client.charge(callerName(index), settings.key(), ScenarioSettings.AMOUNT);
            }, callerName(i));
            caller.setDaemon(true);
            caller.start();
            callers.add(caller);
        }
        try {
            parked.await();
            client.startClock();
            long startNanos = System.nanoTime();
            release(firstGo, callers.subList(0, 1));
            parkUntil(startNanos + settings.retryAt().toNanos());
            release(retriesGo, callers.subList(1, count));
            for (Thread caller : callers) {
                caller.join();
            }
        } catch (InterruptedException e) {
            callers.forEach(Thread::interrupt);
            throw e;
        }
        return Arrays.asList(results);
    }

    private static void release(AtomicBoolean go, List<Thread> callers) {
        go.set(true);
        for (Thread caller : callers) {
            LockSupport.unpark(caller);
        }
    }

    /** Callers B..N that started only once A had its answer: they replayed rather than raced. */
    static long lateCallers(List<CallerResult> callers) {
        long firstAnswered = callers.get(0).endMs();
        return callers.stream().skip(1).filter(c -> c.startMs() >= firstAnswered).count();
    }

    @Override
    void reportOutcome(List<CallerResult> callers, ScenarioSettings settings, Map<String, Object> reported) {
        reported.put("retriesStartedFromMs", callers.stream().skip(1).mapToLong(CallerResult::startMs).min().orElse(0));
        reported.put("retriesStartedToMs", callers.stream().skip(1).mapToLong(CallerResult::startMs).max().orElse(0));
        reported.put("lateCallers", lateCallers(callers));
    }

    @Override
    String note(List<CallerResult> callers, ScenarioSettings settings) {
        long late = lateCallers(callers);
        if (late == 0) {
            return "";
        }
        long to = callers.stream().skip(1).mapToLong(CallerResult::startMs).max().orElse(0);
        return "warning: " + late + " of " + (callers.size() - 1) + " callers B..N started after A had its answer "
                + "(at " + callers.get(0).endMs() + " ms; retries started from " + settings.retryAt().toMillis()
                + " to " + to + " ms): they did not race A; this machine could not start them on time";
    }

    /** Caller names: A, B, ..., Z, then C27, C28, ... */
    static String callerName(int index) {
        return index < 26 ? String.valueOf((char) ('A' + index)) : "C" + (index + 1);
    }

    /** Sleeps until {@code System.nanoTime()} reaches {@code atNanos}: when a scenario's retry is due. */
    static void parkUntil(long atNanos) throws InterruptedException {
        for (long left = atNanos - System.nanoTime(); left > 0; left = atNanos - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
