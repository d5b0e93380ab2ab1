package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.lab.scenario.DroppedRenewals;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;
import dev.idemlab.provider.StaleFenceException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.idemlab.lab.faults.Case.EVERY_STORE;
import static dev.idemlab.lab.faults.FaultCase.Outcome.of;
import static dev.idemlab.lab.faults.FaultRig.CHARGE;
import static dev.idemlab.lab.faults.FaultRig.call;
import static dev.idemlab.lab.faults.FaultRig.key;

/** Faults of concurrency, failing actions and leases (catalogue cases 1 to 9 and 15), on every store. */
final class ConcurrencyFaults {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private ConcurrencyFaults() { }

    static List<FaultCase> all() {
        return List.of(
                new Case(1, "16 concurrent identical requests", "16 callers released together by a latch", "I1: one charge",
                        EVERY_STORE, ConcurrencyFaults::sixteenAtOnce),
                new Case(2, "same key, another fingerprint, concurrent", "16 callers, half with amount 5, one latch",
                        "one charge; the other amount gets 422", EVERY_STORE, ConcurrencyFaults::reuseWhilePending),
                new Case(3, "the action throws", "the provider times out before charging, then the retry",
                        "I4: nothing left behind; the retry charges once", EVERY_STORE, ConcurrencyFaults::actionThrows),
                new Case(4, "the action is interrupted", "future.cancel(true) while the holder is inside the provider",
                        "the marker is released; the retry charges once", EVERY_STORE, ConcurrencyFaults::interrupted),
                new Case(6, "holder paused beyond its lease", "renewals dropped, the holder parked before charging "
                        + "past the lease, a newcomer charges, the provider checks fences",
                        "the stale holder's charge and release are refused; one charge", EVERY_STORE,
                        ConcurrencyFaults::pausedHolder),
                new Case(8, "reservation held past the waiter's patience", "holder parked inside the provider, "
                        + "waitTimeout 300 ms", "I3: the wait is bounded, the waiter gets 409", EVERY_STORE,
                        ConcurrencyFaults::boundedWait),
                new Case(9, "the heartbeat cannot renew", "every renew fails as a timed-out store call",
                        "each failure counted and retried; once the lease last confirmed has run out the outcome "
                        + "says LEASE_LOST, not a clean success; one charge", EVERY_STORE,
                        ConcurrencyFaults::renewalsFail),
                new Case(15, "release fails after the action failed", "release fails as an unreachable store; "
                        + "lease 300 ms", "I3: 409 for at most the lease, then the retry charges once", EVERY_STORE,
                        ConcurrencyFaults::releaseFails));
    }

    private static FaultCase.Outcome sixteenAtOnce(FaultRig rig) throws Exception {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyCoordinator coordinator = rig.coordinator(IdempotencyConfig.ofDefaults());
        String key = key();
        List<String> answers = together(16, i -> coordinator.execute(call(key, 10), CHARGE,
                () -> provider.charge("o-1", 10, null)).id());
        boolean holds = provider.chargeCount() == 1 && answers.stream().allMatch("ch_1"::equals);
        return of(holds, provider.chargeCount() + " charge(s); answers " + distinct(answers));
    }

    private static FaultCase.Outcome reuseWhilePending(FaultRig rig) throws Exception {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyCoordinator coordinator = rig.coordinator(IdempotencyConfig.ofDefaults());
        String key = key();
        List<String> answers = together(16, i -> {
            long amount = i % 2 == 0 ? 10 : 5;
            try {
                return coordinator.execute(call(key, amount), CHARGE, () -> provider.charge("o-1", amount, null)).id()
                        + "/" + amount;
            } catch (IdempotencyKeyReuseException e) {
                return "422/" + amount;
            }
        });
        long winners = answers.stream().filter(a -> a.startsWith("ch_")).map(a -> a.substring(a.indexOf('/'))).distinct().count();
        boolean holds = provider.chargeCount() == 1 && winners == 1
                && answers.stream().allMatch(a -> a.startsWith("ch_1/") || a.startsWith("422/"));
        return of(holds, provider.chargeCount() + " charge(s); answers " + distinct(answers));
    }

    private static FaultCase.Outcome actionThrows(FaultRig rig) {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyStore store = rig.store();
        IdempotencyCoordinator coordinator = rig.coordinator(store, IdempotencyConfig.ofDefaults());
        String key = key();
        provider.failNextCalls(1);
        String first;
        try {
            first = coordinator.execute(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null)).id();
        } catch (ProviderTimeoutException e) {
            first = "provider timeout";
        }
        boolean left = store.lookup(call(key, 10).namespace()).isPresent();
        String retry = coordinator.execute(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null)).id();
        boolean holds = !left && "provider timeout".equals(first) && provider.chargeIds().equals(List.of("ch_1"));
        return of(holds, first + ", record left: " + left + "; retry " + retry + "; ledger " + provider.chargeIds());
    }

    private static FaultCase.Outcome interrupted(FaultRig rig) throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(n -> {
            if (n == 1) {
                inside.countDown();
                TimeUnit.SECONDS.sleep(30); // interrupted by cancel(true)
            }
        }).build();
        IdempotencyStore store = rig.store();
        IdempotencyCoordinator coordinator = rig.coordinator(store, IdempotencyConfig.ofDefaults());
        String key = key();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<Charge> holder = thread.submit(() -> coordinator.execute(call(key, 10), CHARGE,
                    () -> provider.charge("o-1", 10, null)));
            inside.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            holder.cancel(true);
            boolean released = awaitTrue(() -> store.lookup(call(key, 10).namespace()).isEmpty());
            String retry = coordinator.execute(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null)).id();
            boolean holds = released && provider.chargeIds().equals(List.of("ch_1"));
            return of(holds, "marker released: " + released + "; retry " + retry + "; ledger " + provider.chargeIds());
        } finally {
            thread.shutdownNow();
        }
    }

    private static FaultCase.Outcome pausedHolder(FaultRig rig) throws Exception {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).checkFences(true).build();
        IdempotencyStore store = new DroppedRenewals(rig.store());
        IdempotencyCoordinator coordinator = rig.coordinator(store,
                IdempotencyConfig.custom().lease(Duration.ofMillis(300)).build());
        String key = key();
        CountDownLatch reserved = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<String> holder = thread.submit(() -> {
                try {
                    return coordinator.execute(call(key, 10), CHARGE, context -> {
                        reserved.countDown();
                        wake.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                        return provider.charge(ChargeRequest.of("o-1", 10, null).withFence(context.fence()));
                    }).id();
                } catch (StaleFenceException e) {
                    return "stale fence refused";
                }
            });
            reserved.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            sleep(Duration.ofMillis(900)); // three leases: the marker expires by the store's clock
            String newcomer = coordinator.execute(call(key, 10), CHARGE,
                    context -> provider.charge(ChargeRequest.of("o-1", 10, null).withFence(context.fence()))).id();
            wake.countDown();
            String stale = holder.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            boolean holds = provider.chargeIds().equals(List.of("ch_1")) && "stale fence refused".equals(stale)
                    && coordinator.stats().stale() == 1;
            return of(holds, "newcomer " + newcomer + ", paused holder: " + stale + ", stale counted "
                    + coordinator.stats().stale() + "; ledger " + provider.chargeIds());
        } finally {
            thread.shutdownNow();
        }
    }

    private static FaultCase.Outcome boundedWait(FaultRig rig) throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(n -> {
            inside.countDown();
            release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }).build();
        IdempotencyStore store = rig.store();
        IdempotencyCoordinator holderSide = rig.coordinator(store, IdempotencyConfig.ofDefaults());
        IdempotencyCoordinator waiterSide = rig.coordinator(store,
                IdempotencyConfig.custom().waitTimeout(Duration.ofMillis(300)).build());
        String key = key();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<Charge> holder = thread.submit(() -> holderSide.execute(call(key, 10), CHARGE,
                    () -> provider.charge("o-1", 10, null)));
            inside.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            String waiter;
            try {
                waiter = waiterSide.execute(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null)).id();
            } catch (IdempotencyInProgressException e) {
                waiter = "409 after " + 300 + " ms (retry after " + e.retryAfter().toMillis() + " ms)";
            }
            release.countDown();
            holder.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            boolean holds = waiter.startsWith("409") && provider.chargeCount() == 1;
            return of(holds, "waiter: " + waiter + "; ledger " + provider.chargeIds());
        } finally {
            release.countDown();
            thread.shutdownNow();
        }
    }

    private static FaultCase.Outcome renewalsFail(FaultRig rig) {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ofMillis(400)).build();
        IdempotencyStore store = new ForwardingIdempotencyStore(rig.store()) {
            @Override
            public boolean renew(String namespace, String token, Duration lease) {
                throw new IdempotencyStoreException("injected", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                        "renew timed out", null);
            }
        };
        IdempotencyCoordinator coordinator = rig.coordinator(store,
                IdempotencyConfig.custom().lease(Duration.ofMillis(300)).storePatience(Duration.ZERO).build());
        var result = coordinator.call(call(key(), 10), CHARGE, () -> provider.charge("o-1", 10, null));
        boolean holds = result.outcome() == Outcome.LEASE_LOST && provider.chargeCount() == 1;
        return of(holds, "outcome " + result.outcome() + ", renew errors counted "
                + coordinator.stats().storageErrors().get(dev.idemlab.idempotency.StorePhase.RENEW)
                + "; ledger " + provider.chargeIds());
    }

    private static FaultCase.Outcome releaseFails(FaultRig rig) {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyStore real = rig.store();
        IdempotencyStore store = new ForwardingIdempotencyStore(real) {
            @Override
            public boolean release(String namespace, String token) {
                throw new IdempotencyStoreException("injected", namespace, IdempotencyStoreException.Failure.UNREACHABLE,
                        "connection reset", null);
            }
        };
        IdempotencyConfig config = IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).lease(Duration.ofMillis(300))
                .build();
        IdempotencyCoordinator coordinator = rig.coordinator(store, config);
        String key = key();
        provider.failNextCalls(1);
        try {
            coordinator.execute(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
        } catch (ProviderTimeoutException expected) {
            // the action failed; its release fails too
        }
        String during;
        try {
            during = coordinator.execute(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null)).id();
        } catch (IdempotencyInProgressException e) {
            during = "409";
        }
        sleep(Duration.ofMillis(600));
        String after = rig.coordinator(real, config).execute(call(key, 10), CHARGE,
                () -> provider.charge("o-1", 10, null)).id();
        boolean holds = "409".equals(during) && provider.chargeIds().equals(List.of("ch_1"));
        return of(holds, "retry within the lease: " + during + "; after it: " + after + "; ledger " + provider.chargeIds());
    }

    @FunctionalInterface
    interface Caller {
        String call(int index) throws Exception;
    }

    /** Runs {@code n} callers released together by one latch, and returns their answers in order. */
    static List<String> together(int n, Caller caller) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(threads.submit(() -> {
                    start.await();
                    return caller.call(index);
                }));
            }
            start.countDown();
            List<String> answers = new ArrayList<>();
            for (Future<String> future : futures) {
                answers.add(future.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            threads.shutdownNow();
        }
    }

    static String distinct(List<String> answers) {
        return answers.stream().distinct().sorted().toList().toString();
    }

    static boolean awaitTrue(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        return false;
    }

    /** Lets real time pass: stores decide expiry by their own clocks. */
    static void sleep(Duration time) {
        long deadline = System.nanoTime() + time.toNanos();
        for (long left = time.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
