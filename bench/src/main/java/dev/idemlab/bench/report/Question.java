package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;

import java.util.List;

/** The questions the benchmarks answer, each with its coordinator method and its raw baselines. */
public enum Question {

    FIRST_CALL("first call", "FirstCallBenchmark", "coordinator", List.of("rawReserve", "rawPlainWrite")),
    REPLAY("replay", "ReplayBenchmark", "coordinator", List.of("rawReserve", "rawPlainRead")),
    IN_FLIGHT("in-flight conflict", "InFlightBenchmark", "coordinator", List.of("rawReserve")),
    FINGERPRINT("fingerprint", "FingerprintBenchmark", "ofFields", List.of("rawJsonSha256")),
    REDISSON_FIRST_CALL("first call, beside Redisson", "RedissonBenchmark", "coordinatorFirstCall",
            List.of("redissonFirstCall")),
    REDISSON_REPLAY("replay, beside Redisson", "RedissonBenchmark", "coordinatorReplay", List.of("redissonReplay")),
    PROXY_FIRST_CALL("first call, @Idempotent proxy", "ProxyBenchmark", "proxyFirstCall", List.of("directFirstCall")),
    PROXY_REPLAY("replay, @Idempotent proxy", "ProxyBenchmark", "proxyReplay", List.of("directReplay"));

    private final String title;
    private final String benchmark;
    private final String ours;
    private final List<String> baselines;

    Question(String title, String benchmark, String ours, List<String> baselines) {
        this.title = title;
        this.benchmark = benchmark;
        this.ours = ours;
        this.baselines = baselines;
    }

    public String title() {
        return title;
    }

    /** The JMH benchmark class's simple name. */
    public String benchmark() {
        return benchmark;
    }

    /** The method that measures the library. */
    public String ours() {
        return ours;
    }

    /** The methods that measure the raw baselines, in the order the page lists them. */
    public List<String> baselines() {
        return baselines;
    }

    /** Whether the benchmark runs once per store ({@code -p store=...}); the proxy's runs on memory only. */
    public boolean perStore() {
        return this != FINGERPRINT && !proxy();
    }

    /** Whether it compares the {@code @Idempotent} proxy with the same call made on the coordinator. */
    public boolean proxy() {
        return this == PROXY_FIRST_CALL || this == PROXY_REPLAY;
    }

    /** What a baseline method does on {@code store} ({@code null} for the fingerprint). */
    public static String baselineLabel(String method, StoreKind store) {
        return switch (method) {
            case "rawReserve" -> store.reserveLabel();
            case "rawPlainWrite" -> store.plainWriteLabel();
            case "rawPlainRead" -> store.plainReadLabel();
            case "rawJsonSha256" -> "plain Jackson JSON + SHA-256";
            case "directFirstCall", "directReplay" -> "the same call made directly on the coordinator";
            case "redissonFirstCall", "redissonReplay" -> "Redisson RLock idiom (lock, GET, run, SET with ttl, unlock)";
            default -> throw new IllegalArgumentException("not a baseline method: " + method);
        };
    }
}
