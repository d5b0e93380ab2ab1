package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;
import dev.idemlab.provider.http.ProviderService;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One nemesis run: the workload's callers sent on their schedule against one store while the nemesis
 * injects its faults on its own, every call and fault written into the history, then the history laid
 * against the provider's ledger by the {@link NemesisChecker}. Sync callers run on one pool, async
 * callers' stages on two others (one of which the nemesis makes reject tasks); some stages are
 * cancelled. Not thread-safe: one run at a time.
 */
public final class NemesisRun {

    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);
    /** Beyond a call's own bound: a noisy machine's slack, so that only a call that hangs is reported. */
    private static final Duration SLACK = Duration.ofSeconds(10);
    /** A child JVM's call: its start on a loaded machine, its long action, its pause, and the patience for its lines. */
    private static final Duration CHILD_BOUND = Duration.ofSeconds(120);

    private final StoreBackend backend;
    private final NemesisSettings settings;
    private final Consumer<String> progress;
    /** Which of the store's faults the schedule draws from: all of them, but in a test that aims at a few. */
    private final Predicate<FaultKind> faultFilter;
    private final long start = System.nanoTime();
    private final ExecutorService syncCallers = pool("nemesis-call");
    private final ExecutorService asyncStages = pool("nemesis-async");
    private final RejectingExecutor rejectingStages = new RejectingExecutor(pool("nemesis-async-rejecting"));
    private final ScheduledExecutorService launcher = Executors.newScheduledThreadPool(2, daemon("nemesis-launch"));
    /** Where requests place their orders, with local effects; {@code null} when calls only charge. */
    private OrderBook orders;
    private LocalEffects local;

    private NemesisRun(StoreBackend backend, NemesisSettings settings, Consumer<String> progress,
                       Predicate<FaultKind> faults) {
        this.backend = backend;
        this.settings = settings;
        this.progress = progress;
        this.faultFilter = faults;
    }

    /**
     * Runs the nemesis against {@code backend}'s store; when the ledger holds duplicates that a counted
     * fail-open or lease loss or a broken store promise or a paused or killed child-JVM holder explains,
     * runs the same schedule again with the
     * provider deduplicating on the key, which must then charge once per key.
     *
     * @param progress told one line now and then
     * @throws IOException when the store's proxy cannot be set up
     */
    public static NemesisResult run(StoreBackend backend, NemesisSettings settings, Consumer<String> progress)
            throws IOException, InterruptedException {
        return run(backend, settings, progress, kind -> true);
    }

    /** As {@link #run(StoreBackend, NemesisSettings, Consumer)}, the schedule drawn only from the faults {@code only} accepts. */
    static NemesisResult run(StoreBackend backend, NemesisSettings settings, Consumer<String> progress,
                             Predicate<FaultKind> only) throws IOException, InterruptedException {
        NemesisResult first = new NemesisRun(backend, settings, progress, only).pass();
        if (settings.downstreamKey() || first.verdict().explainedDuplicates() == 0) {
            return first;
        }
        progress.accept("the same schedule again, the provider deduplicating on the key");
        return first.withDownstreamPass(new NemesisRun(backend, settings.withDownstreamKey(), progress, only).pass());
    }

    private NemesisResult pass() throws IOException, InterruptedException {
        Workload workload = Workload.draw(settings.seed(), settings.duration(), settings.lease());
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO)
                .deduplicateOnKey(settings.downstreamKey()).build();
        IdempotencyConfig config = IdempotencyConfig.custom().lease(settings.lease()).build();
        List<CallRecord> calls = new ArrayList<>(workload.calls());
        List<FaultEvent> faults;
        List<StallWatch.Stall> stalls;
        dev.idemlab.idempotency.IdempotencyStats stats;
        dev.idemlab.lab.infra.ServerInfo server;
        List<Violation> orderViolations = List.of();
        ProviderService providerService = null;
        try (NemesisTarget target = NemesisTarget.open(backend, settings.lease(), settings.seed());
             StallWatch watch = StallWatch.start(target.store(), start)) {
            IdempotencyStore store = settings.sabotage() == Sabotage.FORGETFUL_STORE
                    ? new ForgetfulStore(target.store(), settings.seed()) : target.store();
            Map<String, IdempotencyCoordinator> coordinators = coordinators(store, config);
            if (settings.localEffects()) {
                openOrders(target);
            }
            FaultSchedule schedule = FaultSchedule.draw(settings.seed(), settings.duration(),
                    Nemesis.kinds(target).stream().filter(faultFilter)
                            .filter(kind -> !settings.localEffects() || !kind.onChildHolder()).toList());
            List<ChildHolderFaults.Planned> holderFaults = planHolders(schedule, workload, config, calls);
            CountDownLatch answered = new CountDownLatch(workload.calls() + holderFaults.stream()
                    .mapToInt(planned -> 1 + planned.retries().size()).sum());
            if (!holderFaults.isEmpty()) {
                providerService = ProviderService.start(provider);
            }
            ChildHolderFaults holders = holderFaults.isEmpty() ? null : new ChildHolderFaults(
                    StoreEndpoint.sameAs(target.store()).orElseThrow(), StoreEndpoint.prefixOf(target.store()),
                    providerService.uri(), settings.lease(), start, holderFaults,
                    planned -> sendRetries(planned, coordinators, provider, answered), answered::countDown);
            Nemesis nemesis = new Nemesis(target, rejectingStages, schedule, holders, start);
            long bound = 0;
            for (Workload.Request request : workload.requests()) {
                for (int i = 0; i < request.callers().size(); i++) {
                    Workload.Caller caller = request.callers().get(i);
                    CallRecord record = new CallRecord(calls.size(), request.key(), i, caller.async(), caller.policy(), onStoreFailure(caller),
                            bound(config, caller));
                    bound = Math.max(bound, record.boundNanos);
                    calls.add(record);
                    launcher.schedule(() -> send(coordinators.get(caller.policy() + "/" + onStoreFailure(caller)), provider, caller, record, answered),
                            caller.atMillis(), TimeUnit.MILLISECONDS);
                }
            }
            nemesis.start();
            try {
                awaitAnswers(answered, calls, nemesis, bound);
            } finally {
                faults = nemesis.stop();
                stalls = watch.stop();
            }
            // A holder fault the nemesis never came to (the run gave up first) sent nothing: no calls of it.
            for (ChildHolderFaults.Planned planned : holderFaults) {
                if (planned.child().sentAt() == 0) {
                    calls.remove(planned.child());
                    calls.removeAll(planned.retries());
                }
            }
            orderViolations = checkOrders(calls);
            // After the faults: a target that restarted its server reports the one that runs now.
            server = target.server();
            stats = NemesisHistory.sum(new java.util.HashSet<>(coordinators.values()).stream()
                    .map(IdempotencyCoordinator::stats).toList());
        } finally {
            if (providerService != null) {
                providerService.close();
            }
            launcher.shutdownNow();
            syncCallers.shutdownNow();
            asyncStages.shutdownNow();
            rejectingStages.shutdownNow();
        }
        NemesisHistory history = new NemesisHistory(settings, server, calls, faults, provider.ledger(),
                System.nanoTime() - start, stats, stalls);
        return new NemesisResult(history, NemesisChecker.check(history).with(orderViolations), null);
    }

    /** The orders read back beside the answers, then their table dropped; none without local effects. */
    private List<Violation> checkOrders(List<CallRecord> calls) throws IOException {
        if (orders == null) {
            return List.of();
        }
        try (OrderBook book = orders) {
            return book.check(calls);
        } catch (java.sql.SQLException e) {
            throw new IOException("the nemesis could not read its orders back: " + e.getMessage(), e);
        }
    }

    /** Local effects: the orders' table in the store's own database, and the workflows' transactions. */
    private void openOrders(NemesisTarget target) throws IOException {
        if (!(target.store() instanceof PostgresIdempotencyStore postgres)) {
            throw new IllegalArgumentException("local effects live in the store's own PostgreSQL: run them on postgres");
        }
        local = LocalEffects.of(postgres);
        try {
            orders = new OrderBook(local.dataSource());
        } catch (java.sql.SQLException e) {
            throw new IOException("the nemesis could not make its orders' table: " + e.getMessage(), e);
        }
    }

    /**
     * The records of the schedule's holder faults, on keys past the workload's own, appended to
     * {@code calls}: each child's call, then its in-process retries.
     */
    private List<ChildHolderFaults.Planned> planHolders(FaultSchedule schedule, Workload workload,
                                                        IdempotencyConfig config, List<CallRecord> calls) {
        List<ChildHolderFaults.Planned> planned = new ArrayList<>();
        for (HolderPlan plan : HolderPlan.draw(settings.seed(), schedule, workload.requests().size(), settings.lease())) {
            CallRecord child = CallRecord.ofChild(calls.size(), plan.key(), CHILD_BOUND.toNanos());
            calls.add(child);
            List<CallRecord> retries = new ArrayList<>();
            for (int i = 0; i < plan.retries().size(); i++) {
                Workload.Caller caller = plan.retries().get(i);
                CallRecord retry = new CallRecord(calls.size(), plan.key(), i + 1, caller.async(), caller.policy(),
                        caller.onStoreFailure(), bound(config, caller));
                calls.add(retry);
                retries.add(retry);
            }
            planned.add(new ChildHolderFaults.Planned(plan, child, retries));
        }
        return planned;
    }

    /** Sends a holder fault's in-process retries, each at its time from now (the child holds the key). */
    private void sendRetries(ChildHolderFaults.Planned planned, Map<String, IdempotencyCoordinator> coordinators,
                             FakePaymentProvider provider, CountDownLatch answered) {
        for (int i = 0; i < planned.retries().size(); i++) {
            Workload.Caller caller = planned.plan().retries().get(i);
            CallRecord record = planned.retries().get(i);
            launcher.schedule(() -> send(coordinators.get(caller.policy() + "/" + onStoreFailure(caller)), provider,
                    caller, record, answered), caller.atMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * What {@code caller} does when the store fails: as drawn, but with local effects, where every caller
     * fails closed (with their database failing, the order could not be written anyway).
     */
    private StoreFailureMode onStoreFailure(Workload.Caller caller) {
        return settings.localEffects() ? StoreFailureMode.FAIL_CLOSED : caller.onStoreFailure();
    }

    /** One coordinator per policy and store-failure mode, all over the one store. */
    private Map<String, IdempotencyCoordinator> coordinators(IdempotencyStore store, IdempotencyConfig config) {
        Map<String, IdempotencyCoordinator> coordinators = new java.util.HashMap<>();
        IdempotencyCoordinator cache = CoordinatorFactory.LIBRARY.create(store, LabPolicy.RUN, config);
        for (InFlightPolicy policy : InFlightPolicy.values()) {
            for (StoreFailureMode mode : StoreFailureMode.values()) {
                coordinators.put(policy + "/" + mode, settings.sabotage() == Sabotage.RESULT_CACHE ? cache
                        : CoordinatorFactory.LIBRARY.create(store, policy == InFlightPolicy.WAIT ? LabPolicy.WAIT
                                : LabPolicy.RAISE, config.toBuilder().storeFailureMode(mode).build()));
            }
        }
        return coordinators;
    }

    /**
     * How long a call may take before it counts as hung: a whole wait, its own action, the lease of a
     * holder that died, and a few store patiences (reserve, complete, a contention again), plus slack.
     */
    private static long bound(IdempotencyConfig config, Workload.Caller caller) {
        return config.waitTimeout().plus(config.lease().multipliedBy(2)).plus(config.storePatience().multipliedBy(3))
                .plusMillis(caller.actionMillis()).plus(SLACK).toNanos();
    }

    private void send(IdempotencyCoordinator coordinator, FakePaymentProvider provider, Workload.Caller caller,
                      CallRecord record, CountDownLatch answered) {
        int key = record.key;
        if (caller.otherBody()) {
            record.asks(LoadKeys.amount(key) + 1);
        }
        long amount = record.amount();
        IdempotentCall call = IdempotentCall.of(LoadKeys.OPERATION, LoadKeys.key(key),
                Fingerprint.ofFields(Map.of("order_id", LoadKeys.orderId(key), "amount", amount)));
        if (orders != null) {
            ContextualAction<Workflow.Progress, Exception> order = orders.action(local, record, caller.actionMillis(),
                    caller.actionFails(), provider, this::now);
            Answer<Workflow.Progress> answer = (progress, how) -> record.answered(now(),
                    progress.outputs().get("charge_created"), how, progress.outputs().get("order_created"));
            send(coordinator, call, PROGRESS, order, answer, caller, record, answered);
            return;
        }
        ContextualAction<Charge, Exception> action = context -> {
            record.actionStarted(now(), context == null ? dev.idemlab.idempotency.IdempotencyContext.NO_FENCE
                    : context.fence());
            Thread.sleep(caller.actionMillis());
            if (caller.actionFails()) {
                throw new ProviderTimeoutException(LoadKeys.orderId(key));
            }
            // The key the coordinator hands the action, as a service passes it on: a provider that deduplicates
            // on it charges once only if every path of the coordinator passes the same one.
            String downstream = context != null && context.downstreamKey() != null ? context.downstreamKey()
                    : LoadKeys.key(key);
            Charge charge = provider.charge(LoadKeys.orderId(key), amount, downstream);
            record.charged(charge.id());
            return charge;
        };
        send(coordinator, call, CHARGE, action, (charge, how) -> record.answered(now(), charge.id(), how), caller,
                record, answered);
    }

    /** What a caller does with the value it got and how it was produced. */
    @FunctionalInterface
    private interface Answer<T> {
        void got(T value, dev.idemlab.idempotency.Outcome how);
    }

    private <T> void send(IdempotencyCoordinator coordinator, IdempotentCall call, ResultCodec<T> codec,
                          ContextualAction<T, Exception> action, Answer<T> answer, Workload.Caller caller,
                          CallRecord record, CountDownLatch answered) {
        if (caller.async()) {
            sendAsync(coordinator, call, codec, action, answer, caller, record, answered);
        } else {
            sendSync(coordinator, call, codec, action, answer, record, answered);
        }
    }

    private <T> void sendSync(IdempotencyCoordinator coordinator, IdempotentCall call, ResultCodec<T> codec,
                              ContextualAction<T, Exception> action, Answer<T> answer, CallRecord record,
                              CountDownLatch answered) {
        syncCallers.execute(() -> {
            record.sent(now());
            try {
                IdempotentResult<T> result = coordinator.call(call, codec, action);
                answer.got(result.value(), result.outcome());
            } catch (Throwable failure) {
                record.failed(now(), failure);
            } finally {
                answered.countDown();
            }
        });
    }

    private <T> void sendAsync(IdempotencyCoordinator coordinator, IdempotentCall call, ResultCodec<T> codec,
                               ContextualAction<T, Exception> action, Answer<T> answer, Workload.Caller caller,
                               CallRecord record, CountDownLatch answered) {
        record.sent(now());
        CompletableFuture<IdempotentResult<T>> stage;
        try {
            stage = coordinator.callAsync(call, codec, action,
                    record.id % 2 == 0 ? asyncStages : rejectingStages).toCompletableFuture();
        } catch (Throwable failure) {
            record.failed(now(), failure);
            answered.countDown();
            return;
        }
        stage.whenComplete((result, failure) -> {
            if (failure != null) {
                record.failed(now(), failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
            } else {
                answer.got(result.value(), result.outcome());
            }
            answered.countDown();
        });
        if (caller.cancels()) {
            launcher.schedule(() -> {
                if (stage.cancel(true)) {
                    record.cancelled(now());
                }
            }, caller.cancelAfterMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Waits for every call's answer, telling the progress every few seconds, at most until the last could
     * have answered: the workload's end plus the longest bound, or later where a call was sent late (a
     * holder fault near the end, whose child's bound covers the retries it sends).
     */
    private void awaitAnswers(CountDownLatch answered, List<CallRecord> calls, Nemesis nemesis, long bound)
            throws InterruptedException {
        long workloadEnd = start + settings.duration().toNanos() + bound;
        while (!answered.await(5, TimeUnit.SECONDS)) {
            long now = System.nanoTime();
            long giveUpAt = workloadEnd;
            for (CallRecord call : calls) {
                if (call.sentAt() > 0) {
                    giveUpAt = Math.max(giveUpAt, start + call.sentAt() + call.boundNanos);
                }
            }
            progress.accept(String.format(java.util.Locale.ROOT, "%s: %.0f s of %d, %,d of %,d calls answered, %d faults",
                    backend.name(), (now - start) / 1e9, settings.duration().toSeconds(),
                    calls.size() - answered.getCount(), calls.size(), nemesis.injected()));
            if (now - giveUpAt > 0) {
                return;
            }
        }
    }

    private long now() {
        return System.nanoTime() - start;
    }

    private static ExecutorService pool(String name) {
        return Executors.newCachedThreadPool(daemon(name));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
