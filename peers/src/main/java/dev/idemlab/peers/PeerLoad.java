package dev.idemlab.peers;

import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Drives one peer with concurrent duplicates: per repetition, a fresh key and {@code callers} identical
 * requests released together by a latch; then counts, from the provider's ledger, the charges beyond
 * one per key. Bounded in count ({@link LoadOptions#repetitions()}) and time ({@link LoadOptions#budget()}).
 *
 * <p>Not thread-safe: one run at a time per instance.
 */
public final class PeerLoad {

    private static final long AMOUNT = 10;
    private static final long CALL_DEADLINE_MS = 30_000;

    private final PeerFactory factory;
    private final String storeUri;
    private final LoadOptions options;

    public PeerLoad(PeerFactory factory, String storeUri, LoadOptions options) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.storeUri = storeUri;
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Runs the load and checks it against the ledger.
     *
     * @throws IllegalStateException if a caller does not answer within 30 s or the run is interrupted
     */
    public LoadReport run() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(options.latency()).build();
        String run = "peers-9-" + UUID.randomUUID().toString().substring(0, 8);
        ExecutorService pool = Executors.newFixedThreadPool(options.callers(), runnable -> {
            Thread thread = new Thread(runnable, "peers-load");
            thread.setDaemon(true);
            return thread;
        });
        long start = System.nanoTime();
        long budgetEnd = start + options.budget().toNanos();
        Tally tally = new Tally();
        int repetitions = 0;
        String version;
        try (PeerLibrary peer = factory.open(provider, storeUri)) {
            version = peer.version();
            while (repetitions < options.repetitions() && System.nanoTime() < budgetEnd) {
                String key = run + "-" + repetitions;
                tally.add(key, oneKey(peer, pool, key));
                repetitions++;
            }
        } finally {
            pool.shutdownNow();
        }
        return tally.report(factory.name(), version, options.callers(), repetitions, provider.ledger(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private List<Response> oneKey(PeerLibrary peer, ExecutorService pool, String key) {
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<Response>> futures = new ArrayList<>();
        for (int i = 0; i < options.callers(); i++) {
            futures.add(pool.submit(() -> {
                gate.await();
                try {
                    return Response.of(peer.charge(key, "order-" + key, AMOUNT));
                } catch (RuntimeException e) {
                    return Response.error(e);
                }
            }));
        }
        gate.countDown();
        List<Response> responses = new ArrayList<>();
        try {
            for (Future<Response> future : futures) {
                responses.add(future.get(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the load run", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("a caller did not answer within " + CALL_DEADLINE_MS + " ms on key " + key, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("a caller failed outside the library", e.getCause());
        }
        return responses;
    }

    /** Responses per key until the ledger is read at the end. */
    private static final class Tally {

        private final Map<String, List<Response>> byKey = new java.util.LinkedHashMap<>();

        void add(String key, List<Response> responses) {
            byKey.put(key, responses);
        }

        LoadReport report(String peer, String version, int callers, int repetitions, List<Charge> ledger, long ms) {
            Map<String, List<Charge>> chargesByOrder = ledger.stream()
                    .collect(Collectors.groupingBy(Charge::orderId));
            long duplicates = 0;
            long twice = 0;
            long never = 0;
            long consistent = 0;
            long otherCharge = 0;
            long nulls = 0;
            long inProgress = 0;
            long otherErrors = 0;
            long otherObjects = 0;
            long requests = 0;
            for (Map.Entry<String, List<Response>> entry : byKey.entrySet()) {
                List<Charge> charges = chargesByOrder.getOrDefault("order-" + entry.getKey(), List.of());
                duplicates += Math.max(0, charges.size() - 1);
                twice += charges.size() > 1 ? 1 : 0;
                never += charges.isEmpty() ? 1 : 0;
                String first = charges.isEmpty() ? null : charges.get(0).id();
                for (Response r : entry.getValue()) {
                    requests++;
                    switch (r.kind()) {
                        case CHARGE -> {
                            if (r.isCharge(first)) {
                                consistent++;
                            } else {
                                otherCharge++;
                            }
                        }
                        case NULL -> nulls++;
                        case OTHER -> otherObjects++;
                        case ERROR -> {
                            if (r.signal() == ErrorSignal.IN_PROGRESS_OR_CONFLICT) {
                                inProgress++;
                            } else {
                                otherErrors++;
                            }
                        }
                    }
                }
            }
            return new LoadReport(peer, version, callers, repetitions, requests, ledger.size(), duplicates, twice, never,
                    consistent, otherCharge, nulls, inProgress, otherErrors, otherObjects, ms);
        }
    }
}
