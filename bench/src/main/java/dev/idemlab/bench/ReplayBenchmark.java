package dev.idemlab.bench;

import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What does a replay cost? The key is already completed; one call finds the record and replays its
 * result without running the action (an action that runs fails the benchmark). Beside it, the raw
 * store on a present key: {@code rawReserve} is the same atomic conditional write the reservation
 * makes, {@code rawPlainRead} a plain read. Each thread replays its own key, so this measures the
 * replay, not contention on one key (that is {@link InFlightBenchmark}'s question).
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ReplayBenchmark -p store=MEMORY -t 1 -rf json -rff replay.json
 * java -jar bench/target/benchmarks.jar ReplayBenchmark -p store=REDIS,POSTGRES -t 4
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReplayBenchmark {

    @Param({"MEMORY", "REDIS", "POSTGRES"})
    StoreKind store;

    private StoreFixture fixture;

    @Setup(Level.Trial)
    public void open() {
        fixture = StoreFixture.open(store, InFlightPolicy.WAIT);
    }

    @TearDown(Level.Trial)
    public void close() {
        fixture.close();
    }

    /** One key per thread, completed through the coordinator (and seeded raw) before measuring. */
    @State(Scope.Thread)
    public static class CompletedKey {

        String key;

        @Setup(Level.Trial)
        public void complete(ReplayBenchmark bench) {
            key = "replay-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
            IdempotentCall call = IdempotentCall.of(Requests.OPERATION, key, Requests.FINGERPRINT);
            bench.fixture.coordinator().execute(call, Requests.CODEC, Requests.NO_OP);
            bench.fixture.raw().seed(key);
        }
    }

    @Benchmark
    public String coordinator(CompletedKey completed) {
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, completed.key, Requests.FINGERPRINT);
        return fixture.coordinator().execute(call, Requests.CODEC, Requests.MUST_NOT_RUN);
    }

    @Benchmark
    public Object rawReserve(CompletedKey completed) {
        return fixture.raw().reserve(completed.key);
    }

    @Benchmark
    public Object rawPlainRead(CompletedKey completed) {
        return fixture.raw().plainRead(completed.key);
    }
}
