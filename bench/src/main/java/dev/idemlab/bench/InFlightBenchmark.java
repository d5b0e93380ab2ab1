package dev.idemlab.bench;

import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.Reservation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What does refusing an in-flight duplicate cost? {@value #CALLERS} threads hit one key whose
 * reservation is held by the setup and never completed; under policy RAISE each call is refused with
 * {@link IdempotencyInProgressException} (HTTP 409), which the benchmark catches and returns. Beside
 * it, {@value #CALLERS} threads hit one present key with the raw atomic conditional write.
 *
 * <p>The groups fix their own thread count; run with {@code -t 4} (one group) or leave {@code -t} out:
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar InFlightBenchmark -p store=MEMORY -t 4 -rf json -rff in-flight.json
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class InFlightBenchmark {

    /** Threads per group, all on the same key. */
    static final int CALLERS = 4;

    /** Outlives any trial, so the reservation is in flight from the first call to the last. */
    private static final Duration HELD_LEASE = Duration.ofHours(1);

    @Param({"MEMORY", "REDIS", "POSTGRES"})
    StoreKind store;

    private StoreFixture fixture;
    private String key;

    @Setup(Level.Trial)
    public void holdReservation() {
        fixture = StoreFixture.open(store, InFlightPolicy.RAISE);
        key = "in-flight-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, key, Requests.FINGERPRINT);
        Reservation held = fixture.store().reserve(call.namespace(), "bench-holder-" + key,
                Requests.FINGERPRINT.hex(), HELD_LEASE);
        if (!(held instanceof Reservation.Acquired)) {
            throw new IllegalStateException("the setup could not reserve " + call.namespace() + ": " + held);
        }
        fixture.raw().seed(key);
    }

    @TearDown(Level.Trial)
    public void close() {
        fixture.close();
    }

    @Benchmark
    @Group("coordinator")
    @GroupThreads(CALLERS)
    public Object coordinator() {
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, key, Requests.FINGERPRINT);
        try {
            return fixture.coordinator().execute(call, Requests.CODEC, Requests.MUST_NOT_RUN);
        } catch (IdempotencyInProgressException refused) {
            return refused;
        }
    }

    @Benchmark
    @Group("rawReserve")
    @GroupThreads(CALLERS)
    public Object rawReserve() {
        return fixture.raw().reserve(key);
    }
}
