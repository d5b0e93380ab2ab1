package dev.idemlab.bench.wakeup;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * How soon a WAIT caller gets its answer after the holder of the key got its own: the wake-up delay,
 * per store, at 1, 10 and 100 waiters, beside the idiom users write instead (a Redisson {@code RLock}
 * waiter on the same Redis, in the same run). JMH cannot express "the delay between two other
 * threads' returns", so this is a plain harness: each round a holder reserves a fresh key and parks
 * inside its action; the waiters call; once every one of them has found the key held the holder is
 * released, and each waiter's return is measured from the holder's return (HdrHistogram, ns, 3
 * significant digits). The cost of an idle subscription (subscribe, then close) is measured too.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.idemlab.bench.wakeup.WakeUpHarness --out results/bench/wakeup.md
 * </pre>
 */
public final class WakeUpHarness {

    private static final ResultCodec<String> CODEC = ResultCodec.json(String.class);
    private static final int[] WAITERS = {1, 10, 100};

    private WakeUpHarness() { }

    /** How the coordinator's own rows are named. */
    static final String OURS = "idempotency-lab wait";

    /** One row of the table. */
    record Row(String store, String who, int waiters, Histogram delays) { }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Options.parse(args);
        List<String> stores = List.of(options.getOrDefault("--stores", "memory,redis,postgres").split(","));
        int rounds = Integer.parseInt(options.getOrDefault("--rounds", "40"));
        Path out = Path.of(options.getOrDefault("--out", "results/bench/wakeup.md"));
        List<Row> rows = new ArrayList<>();
        List<String> servers = new ArrayList<>();
        List<String> subscriptionCosts = new ArrayList<>();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            for (String name : stores) {
                try (StoreBackend backend = StoreBackends.open(name, ProvisioningOptions.defaults())) {
                    servers.add(backend.server().describe());
                    try (ObservedStore store = new ObservedStore(backend.openStore())) {
                        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                                .config(IdempotencyConfig.custom().waitTimeout(Duration.ofSeconds(30)).build()).build();
                        measure(name, OURS, coordinator, store, 1, 10, threads); // warm-up
                        for (int waiters : WAITERS) {
                            int n = waiters == 100 ? Math.max(5, rounds / 4) : rounds;
                            rows.add(new Row(name, OURS, waiters,
                                    measure(name, OURS, coordinator, store, waiters, n, threads)));
                            System.err.printf("wakeup: %s, %d waiters done%n", name, waiters);
                        }
                        subscriptionCosts.add(name + ": " + subscriptionCost(backend.openStore()));
                    }
                    if (name.equals("redis")) {
                        try (RedissonWaiter redisson = RedissonWaiter.connect(uriOf(backend))) {
                            redisson.measure(1, 10, threads);
                            for (int waiters : WAITERS) {
                                int n = waiters == 100 ? Math.max(5, rounds / 4) : rounds;
                                rows.add(new Row(name, "Redisson RLock " + redisson.version(), waiters,
                                        redisson.measure(waiters, n, threads)));
                                System.err.printf("wakeup: redisson, %d waiters done%n", waiters);
                            }
                        }
                    }
                }
            }
        } finally {
            threads.shutdownNow();
        }
        String page = WakeUpPage.render(rows, servers, subscriptionCosts, rounds);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, page);
        System.out.print(page);
        System.err.println("wrote " + out);
    }

    private static String uriOf(StoreBackend backend) {
        return ((dev.idemlab.lab.infra.RedisBackend) backend).uri();
    }

    /** {@code rounds} rounds of one holder and {@code waiters} waiters on a fresh key. */
    static Histogram measure(String store, String who, IdempotencyCoordinator coordinator, ObservedStore observed,
                             int waiters, int rounds, ExecutorService threads) throws Exception {
        Histogram delays = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (int round = 0; round < rounds; round++) {
            IdempotentCall call = IdempotentCall.of("payment.charge", UUID.randomUUID().toString(),
                    Fingerprint.ofFields(Map.of("order_id", "o-1", "amount", 10)));
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            observed.foundHeld.drainPermits();
            Future<Long> holder = threads.submit(() -> {
                coordinator.execute(call, CODEC, () -> {
                    inside.countDown();
                    release.await(30, TimeUnit.SECONDS);
                    return "ch_1";
                });
                return System.nanoTime();
            });
            if (!inside.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the holder never ran on " + store);
            }
            List<Future<Long>> calls = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                calls.add(threads.submit(() -> {
                    coordinator.execute(call, CODEC, () -> "ch_2");
                    return System.nanoTime();
                }));
            }
            if (!observed.foundHeld.tryAcquire(waiters, 30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the waiters never found the key held on " + store);
            }
            Thread.sleep(5); // let the last waiter subscribe and park after its reserve
            release.countDown();
            long holderReturned = holder.get(30, TimeUnit.SECONDS);
            for (Future<Long> waiter : calls) {
                delays.recordValue(Math.max(0, waiter.get(30, TimeUnit.SECONDS) - holderReturned));
            }
        }
        return delays;
    }

    private static String subscriptionCost(dev.idemlab.idempotency.spi.IdempotencyStore store) {
        try (store) {
            CompletionNotifications notifying = CompletionNotifications.of(store);
            if (notifying == null) {
                return "no notifications";
            }
            notifying.subscribe("warm:up", () -> { }).close(); // opens the subscriber connection once
            int n = 100_000;
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                notifying.subscribe("payment.charge:idle-" + (i & 1023), () -> { }).close();
            }
            return String.format(Locale.ROOT, "%.0f ns per subscribe and close, one shared subscriber connection",
                    (System.nanoTime() - start) / (double) n);
        }
    }

    /** {@code --name value} pairs. */
    static final class Options {
        static Map<String, String> parse(String[] args) throws IOException {
            Map<String, String> options = new java.util.HashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) {
                options.put(args[i], args[i + 1]);
            }
            return options;
        }
    }
}
