package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.RedisClusterBackend;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * What WAIT costs a reservation on a healthy cluster: {@code reserve} timed on one thread, alternating
 * a store without WAIT and one with {@code WAIT 1}, each on a fresh namespace (so every reservation
 * writes and WAIT has something to wait for), the release after each untimed. Percentiles from
 * HdrHistogram (3 significant digits), the ratio to the baseline measured in the same run.
 *
 * @param samples reservations timed per store
 * @param without latencies without WAIT, in microseconds
 * @param with latencies with WAIT 1, in microseconds
 */
public record ReplicaWaitLatency(int samples, Histogram without, Histogram with) {

    private static final String FP = "f".repeat(64);
    private static final Duration LEASE = Duration.ofSeconds(30);

    /** Times {@code samples} reservations per store after as many untimed ones to warm up. */
    public static ReplicaWaitLatency measure(RedisClusterBackend backend, int samples) {
        Histogram without = new Histogram(Duration.ofSeconds(10).toNanos() / 1000, 3);
        Histogram with = new Histogram(Duration.ofSeconds(10).toNanos() / 1000, 3);
        try (RedisIdempotencyStore plain = backend.openStore(UnaryOperator.identity());
             RedisIdempotencyStore waiting = backend.openStore(b -> b.waitForReplicas(1, FailoverScenario.WAIT_TIMEOUT))) {
            for (int i = 0; i < samples; i++) {
                reserve(plain);
                reserve(waiting);
            }
            for (int i = 0; i < samples; i++) {
                without.recordValue(reserve(plain));
                with.recordValue(reserve(waiting));
            }
        }
        return new ReplicaWaitLatency(samples, without, with);
    }

    /** One reservation and its release; answers the reservation's time in microseconds. */
    private static long reserve(RedisIdempotencyStore store) {
        String ns = "wait.latency:" + UUID.randomUUID();
        long start = System.nanoTime();
        store.reserve(ns, "t", FP, LEASE);
        long micros = (System.nanoTime() - start) / 1000;
        store.release(ns, "t");
        return micros;
    }

    /** Lines for the report: percentiles per store and the ratio at each. */
    public String describe() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "reserve latency on the healthy cluster, %d per store, one thread, in microseconds:%n", samples));
        out.append(String.format(Locale.ROOT, "  %-22s %8s %8s %8s %8s %8s%n", "", "p50", "p90", "p99", "p99.9", "max"));
        out.append(row("without WAIT", without));
        out.append(row("WAIT 1 (" + FailoverScenario.WAIT_TIMEOUT.toMillis() + " ms)", with));
        out.append(String.format(Locale.ROOT, "  %-22s %8.2f %8.2f %8.2f %8.2f %8.2f%n", "ratio", ratio(50), ratio(90),
                ratio(99), ratio(99.9), (double) with.getMaxValue() / Math.max(1, without.getMaxValue())));
        return out.toString();
    }

    private double ratio(double percentile) {
        return (double) with.getValueAtPercentile(percentile) / Math.max(1, without.getValueAtPercentile(percentile));
    }

    private static String row(String name, Histogram h) {
        return String.format(Locale.ROOT, "  %-22s %8d %8d %8d %8d %8d%n", name, h.getValueAtPercentile(50),
                h.getValueAtPercentile(90), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }
}
