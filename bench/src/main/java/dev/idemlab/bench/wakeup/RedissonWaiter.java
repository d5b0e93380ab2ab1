package dev.idemlab.bench.wakeup;

import org.HdrHistogram.Histogram;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The anchor: the idiom users write instead, a Redisson {@code RLock} around the action. Its waiters
 * block in {@code lock()}, woken by Redisson's pub/sub when the holder unlocks; each then reads the
 * stored result and unlocks in turn, as the idiom does. Measured the same way as the coordinator:
 * each waiter's return after the holder's. Not thread-safe: one measurement at a time.
 */
final class RedissonWaiter implements AutoCloseable {

    private final RedissonClient redisson;

    private RedissonWaiter(RedissonClient redisson) {
        this.redisson = redisson;
    }

    static RedissonWaiter connect(String uri) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(4);
        return new RedissonWaiter(Redisson.create(config));
    }

    /** Redisson's version, from its Maven metadata (the shaded jar drops the manifest's). */
    String version() {
        try (java.io.InputStream in = Redisson.class.getResourceAsStream(
                "/META-INF/maven/org.redisson/redisson/pom.properties")) {
            java.util.Properties properties = new java.util.Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "(version unknown)");
        } catch (java.io.IOException e) {
            return "(version unknown)";
        }
    }

    Histogram measure(int waiters, int rounds, ExecutorService threads) throws Exception {
        Histogram delays = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (int round = 0; round < rounds; round++) {
            String name = "wakeup:" + UUID.randomUUID();
            RLock lock = redisson.getLock(name + ":lock");
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<Long> holder = threads.submit(() -> {
                lock.lock();
                try {
                    locked.countDown();
                    release.await(30, TimeUnit.SECONDS);
                    redisson.getBucket(name + ":result").set("ch_1", 1, TimeUnit.HOURS);
                } finally {
                    lock.unlock();
                }
                return System.nanoTime();
            });
            locked.await(30, TimeUnit.SECONDS);
            List<Future<Long>> calls = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                calls.add(threads.submit(() -> {
                    lock.lock();
                    try {
                        redisson.getBucket(name + ":result").get();
                    } finally {
                        lock.unlock();
                    }
                    return System.nanoTime();
                }));
            }
            Thread.sleep(20L + waiters); // let every waiter reach lock() and subscribe
            release.countDown();
            long holderReturned = holder.get(60, TimeUnit.SECONDS);
            for (Future<Long> waiter : calls) {
                delays.recordValue(Math.max(0, waiter.get(60, TimeUnit.SECONDS) - holderReturned));
            }
        }
        return delays;
    }

    @Override
    public void close() {
        redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
