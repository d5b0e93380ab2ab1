package dev.idemlab.bench;

import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.lab.infra.RedisBackend;
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
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator beside the idiom users write instead, on the same Redis in the same run: a Redisson
 * {@code RLock} per key (lock, {@code GET} the stored result, run the action and {@code SET} its result
 * with the ttl when there is none, unlock). First calls take fresh keys; replays one completed key per
 * thread. The idiom's lock is Redisson's own, with its watchdog renewing it while held, as users leave it.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar RedissonBenchmark -t 1 -rf json -rff redisson.json
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedissonBenchmark {

    /** The record ttl of the coordinator's default config, given to the idiom's SET as well. */
    private static final Duration TTL = Duration.ofHours(24);

    /** Redis only; a parameter so that the summary page files these rows under redis. */
    @Param({"REDIS"})
    StoreKind store;

    private StoreFixture fixture;
    private RedissonClient redisson;

    @Setup(Level.Trial)
    public void open() {
        if (store != StoreKind.REDIS) {
            throw new IllegalArgumentException("Redisson runs on redis only, not " + store);
        }
        fixture = StoreFixture.open(StoreKind.REDIS, InFlightPolicy.WAIT);
        Config config = new Config();
        config.useSingleServer().setAddress(((RedisBackend) fixture.backend()).uri());
        redisson = Redisson.create(config);
    }

    @TearDown(Level.Trial)
    public void close() {
        try {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        } finally {
            fixture.close();
        }
    }

    /** One key per thread, completed by both sides before measuring. */
    @State(Scope.Thread)
    public static class CompletedKey {

        String key;

        @Setup(Level.Trial)
        public void complete(RedissonBenchmark bench) {
            key = "replay-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
            bench.coordinatorFirstCall(key);
            bench.redissonFirstCall(key);
        }
    }

    @Benchmark
    public String coordinatorFirstCall(FreshKeys keys) {
        return coordinatorFirstCall(keys.next());
    }

    @Benchmark
    public String redissonFirstCall(FreshKeys keys) {
        return redissonFirstCall(keys.next());
    }

    @Benchmark
    public String coordinatorReplay(CompletedKey completed) {
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, completed.key, Requests.FINGERPRINT);
        return fixture.coordinator().execute(call, Requests.CODEC, Requests.MUST_NOT_RUN);
    }

    @Benchmark
    public String redissonReplay(CompletedKey completed) {
        String json = redissonCall(completed.key, false);
        if (json == null) {
            throw new IllegalStateException("the idiom found no stored result for a completed key");
        }
        return Requests.CODEC.decode(json);
    }

    private String coordinatorFirstCall(String key) {
        IdempotentCall call = IdempotentCall.of(Requests.OPERATION, key, Requests.FINGERPRINT);
        return fixture.coordinator().execute(call, Requests.CODEC, Requests.NO_OP);
    }

    private String redissonFirstCall(String key) {
        return Requests.CODEC.decode(redissonCall(key, true));
    }

    /** The idiom: lock, read, run and write when nothing is stored, unlock. */
    private String redissonCall(String key, boolean mayRun) {
        String name = "redisson:" + Requests.OPERATION + ':' + key;
        RLock lock = redisson.getLock(name + ":lock");
        lock.lock();
        try {
            RBucket<String> result = redisson.getBucket(name + ":result", StringCodec.INSTANCE);
            String stored = result.get();
            if (stored != null || !mayRun) {
                return stored;
            }
            String json = Requests.CODEC.encode(Requests.NO_OP.run());
            result.set(json, TTL);
            return json;
        } finally {
            lock.unlock();
        }
    }
}
