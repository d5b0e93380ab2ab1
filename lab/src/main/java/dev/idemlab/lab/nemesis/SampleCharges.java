package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.Latency;
import dev.idemlab.provider.ProviderObserver;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;

/**
 * The provider's side of a run through the Spring Boot sample, whose actions run in another JVM that
 * says nothing of them: when each charge reached the provider (the history's clock), which is as close
 * to its action's start as the lab can see (the sample writes its order row first), and how long each
 * charge takes, the action length the workload drew for the key's request, so that some actions outlive
 * the lease as they do on every other layer. The provider calls {@link #callStarted} and then
 * {@link #await} on the same thread. Thread-safe.
 */
final class SampleCharges implements ProviderObserver, Latency {

    private final Map<Integer, Long> startedAt = new ConcurrentHashMap<>();
    private final Map<Integer, String> orderOfCall = new ConcurrentHashMap<>();
    private final Map<String, Long> chargedAt = new ConcurrentHashMap<>();
    private final IntToLongFunction actionMillisOfKey;
    private final long start;

    /**
     * @param actionMillisOfKey how long the action of a history key's request takes
     * @param start the run's start, {@link System#nanoTime()}
     */
    SampleCharges(IntToLongFunction actionMillisOfKey, long start) {
        this.actionMillisOfKey = actionMillisOfKey;
        this.start = start;
    }

    @Override
    public void callStarted(int callNumber, String orderId, long amount) {
        startedAt.put(callNumber, System.nanoTime() - start);
        orderOfCall.put(callNumber, orderId);
    }

    @Override
    public void await(int callNumber) throws InterruptedException {
        String order = orderOfCall.get(callNumber);
        if (order != null) {
            TimeUnit.MILLISECONDS.sleep(actionMillisOfKey.applyAsLong(LoadKeys.indexOfOrder(order)));
        }
    }

    @Override
    public void charged(int callNumber, Charge charge) {
        Long at = startedAt.get(callNumber);
        if (at != null) {
            chargedAt.put(charge.id(), at);
        }
    }

    /** When the call that made {@code charge} reached the provider, on the history's clock. */
    OptionalLong reachedProvider(String charge) {
        Long at = chargedAt.get(charge);
        return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }
}
