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

import java.util.concurrent.TimeUnit;

/**
 * What does a first call cost? The coordinator reserves a key it has never seen, runs a no-op action
 * and completes the record (policy WAIT), beside the raw store doing the same writes by hand:
 * {@code rawReserve} is the one atomic conditional write a reservation is built on, {@code rawPlainWrite}
 * the plain writes a first call needs without the library (see {@link StoreKind}). Every operation
 * uses a key never used before.
 *
 * <p>Run one store at one thread count, as the published figures are run:
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar FirstCallBenchmark -p store=MEMORY -t 1 -rf json -rff first-call.json
 * java -jar bench/target/benchmarks.jar FirstCallBenchmark -p store=REDIS,POSTGRES -t 4
 * }</pre>
 * {@code scripts/bench.sh} runs it with every other benchmark and renders the summary page.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FirstCallBenchmark {

    @Param({"MEMORY", "REDIS", "POSTGRES"})
    StoreKind store;

    private StoreFixture fixture;

    @Setup(Level.Trial)
    public void open() {
        fixture = StoreFixture.open(store, InFlightPolicy.WAIT);
    }

    /** Fresh keys pile up records; the in-process store drops them between iterations. */
    @TearDown(Level.Iteration)
    public void forgetRecords() {
        fixture.forgetRecords();
    }

    @TearDown(Level.Trial)
    public void close() {
        fixture.close();
    }

    @Benchmark
    public String coordinator(FreshKeys keys) {
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, keys.next(), Requests.FINGERPRINT);
        return fixture.coordinator().execute(call, Requests.CODEC, Requests.NO_OP);
    }

    @Benchmark
    public Object rawReserve(FreshKeys keys) {
        return fixture.raw().reserve(keys.next());
    }

    @Benchmark
    public Object rawPlainWrite(FreshKeys keys) {
        return fixture.raw().plainWrite(keys.next());
    }
}
