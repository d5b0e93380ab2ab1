package dev.idemlab.bench;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.Idempotency;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.InFlightPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What does the {@link Idempotent} proxy add to a call? The same charge made through
 * {@link Idempotency#proxy} and made directly on the coordinator, on the in-memory store (no round trip
 * to hide the proxy's cost behind). Both sides do the same work per call: build the fingerprint from
 * the order's id and amount ({@code Fingerprint.ofFields} of the parameters by name, as the proxy
 * does), the call, a JSON codec of the result, and an action that calls the target; the proxy adds the
 * JDK's dynamic proxy, the method's plan lookup, the arguments' copy and the reflective call of the
 * target. The fingerprint is two fields, not the whole order of {@link Requests#payload()}: an order's
 * canonical JSON costs several times a memory store's first call ({@code FingerprintBenchmark}), and
 * would hide what the proxy itself adds. First calls use a key never used before; replays one
 * completed key per thread.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ProxyBenchmark -t 1 -rf json -rff jmh-proxy-threads-1.json
 * }</pre>
 * {@code scripts/bench.sh} runs it with the fingerprint's benchmark; the page's "proxy" section gives
 * the ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ProxyBenchmark {

    /** The interface a service annotates: every parameter but the key is the fingerprint. */
    public interface Charges {
        @Idempotent(operation = Requests.OPERATION)
        String charge(@IdempotencyKey String key, String orderId, long amountCents);
    }

    /** The target: a no-op charge, as {@link Requests#NO_OP}. */
    static final class NoOpCharges implements Charges {
        @Override
        public String charge(String key, String orderId, long amountCents) {
            return "ch_1";
        }
    }

    private static final String ORDER_ID = "ord_2024_000184467";
    private static final long AMOUNT_CENTS = 12_990;

    private StoreFixture fixture;
    private Charges target;
    private Charges proxied;

    @Setup(Level.Trial)
    public void open() {
        fixture = StoreFixture.open(StoreKind.MEMORY, InFlightPolicy.WAIT);
        target = new NoOpCharges();
    }

    /** The proxy over the fixture's coordinator, which {@link #forgetRecords} replaces after each iteration. */
    @Setup(Level.Iteration)
    public void proxy() {
        proxied = Idempotency.proxy(Charges.class, target, fixture.coordinator());
    }

    @TearDown(Level.Trial)
    public void close() {
        fixture.close();
    }

    /** One key per thread, completed before each iteration (fresh keys' records are dropped after one). */
    @State(Scope.Thread)
    public static class CompletedKey {

        String key;

        @Setup(Level.Iteration)
        public void complete(ProxyBenchmark bench) {
            key = "replay-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
            bench.proxied.charge(key, ORDER_ID, AMOUNT_CENTS);
        }
    }

    /** Fresh keys pile up records; the in-process store drops them between iterations. */
    @TearDown(Level.Iteration)
    public void forgetRecords() {
        fixture.forgetRecords();
    }

    @Benchmark
    public String proxyFirstCall(FreshKeys keys) {
        return proxied.charge(keys.next(), ORDER_ID, AMOUNT_CENTS);
    }

    @Benchmark
    public String directFirstCall(FreshKeys keys) {
        return direct(keys.next());
    }

    @Benchmark
    public String proxyReplay(CompletedKey completed) {
        return proxied.charge(completed.key, ORDER_ID, AMOUNT_CENTS);
    }

    @Benchmark
    public String directReplay(CompletedKey completed) {
        return direct(completed.key);
    }

    /** The call the proxy makes, written out: the fingerprint's fields, the call, the codec, the action. */
    private String direct(String key) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("orderId", ORDER_ID);
        fields.put("amountCents", AMOUNT_CENTS);
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, key, Fingerprint.ofFields(fields));
        return fixture.coordinator().execute(call, Requests.CODEC, () -> target.charge(key, ORDER_ID, AMOUNT_CENTS));
    }
}
