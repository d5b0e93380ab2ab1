package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One nemesis run: the workload's callers sent on their schedule against one store, through the layer
 * the settings name ({@link CallPath}: the bare coordinator, the {@code @Idempotent} proxy, or the HTTP
 * filter with several clients), while the nemesis injects its faults on its own, every call and fault
 * written into the history, then the history laid against the provider's ledger by the
 * {@link NemesisChecker} (and, where calls name their clients, the {@link ClientIsolationCheck}). Sync
 * callers run on one pool, async callers' stages on two others (one of which the nemesis makes reject
 * tasks); some stages are cancelled. Not thread-safe: one run at a time.
 */
public final class NemesisRun {

    /** Beyond a call's own bound: a noisy machine's slack, so that only a call that hangs is reported. */
    private static final Duration SLACK = Duration.ofSeconds(10);
    /** A child JVM's call: its start on a loaded machine, its long action, its pause, and the patience for its lines. */
    private static final Duration CHILD_BOUND = Duration.ofSeconds(120);
    /**
     * How long after a long loss of replies on PostgreSQL began the sample's race pairs are sent, a pair on a
     * fresh key each: the loss drops replies from {@link PostgresTarget#BUSY_MILLIS} in and ends 2.2 to 2.6 s
     * in, and a call that gives up on the store (the 2 s socket timeout) while replies are still lost cannot
     * write its order either. A pair 500 ms in gives up as a loss of 2.5 s or less has ended; one a second in
     * gives up after the longest has, where the sample's pool may have no connection left to lend it.
     */
    private static final List<Long> RACE_DELAYS_ON_POSTGRES_MILLIS = List.of(500L, 1000L);

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
     * provider deduplicating on the key, which must then charge once per key. A first pass that found a
     * violation has failed the run already, and its report is what a reader needs: no second pass then
     * (the mutation score's runs end a pass sooner).
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
        if (settings.downstreamKey() || first.verdict().explainedDuplicates() == 0 || !first.verdict().passed()) {
            return first;
        }
        progress.accept("the same schedule again, the provider deduplicating on the key");
        return first.withDownstreamPass(new NemesisRun(backend, settings.withDownstreamKey(), progress, only).pass());
    }

    private NemesisResult pass() throws IOException, InterruptedException {
        Workload workload = Workload.draw(settings.seed(), settings.duration(), settings.lease());
        SampleCharges sampleCharges = settings.through() == Through.SAMPLE ? sampleCharges(workload) : null;
        FakePaymentProvider provider = provider(sampleCharges);
        IdempotencyConfig config = IdempotencyConfig.custom().lease(settings.lease()).build();
        List<CallRecord> calls = new ArrayList<>(workload.calls());
        List<FaultEvent> faults;
        List<StallWatch.Stall> stalls;
        dev.idemlab.idempotency.IdempotencyStats stats;
        dev.idemlab.lab.infra.ServerInfo server;
        List<Violation> pathViolations;
        ProviderService providerService = null;
        CallPath closing = null;
        LandedReserves landed = null;
        Callers callers = new Callers(syncCallers, asyncStages, rejectingStages, launcher, start);
        FailOpenFollowUps followUps = new FailOpenFollowUps(settings.seed(), callers, settings.lease(), bound(config));
        try (NemesisTarget target = NemesisTarget.open(backend, settings.lease(), settings.seed());
             StallWatch watch = StallWatch.start(target.store(), start)) {
            IdempotencyStore store = settings.sabotage() == Sabotage.FORGETFUL_STORE
                    ? new ForgetfulStore(target.store(), settings.seed()) : target.store();
            if (!settings.localEffects() && settings.through() != Through.SAMPLE) {
                // Local effects need the PostgreSQL store itself: their transactions are its connections. The
                // sample's JVM reaches the store's server, not this store object, so only its address is used.
                landed = new LandedReserves(store, settings.sabotage() == Sabotage.FORGETFUL_STORE ? store
                        : target.witness(), callers, settings.lease(), followUps);
                store = landed;
            }
            CallPath path = CallPath.open(settings, store, config, provider, sampleCharges, callers);
            closing = path;
            FaultSchedule schedule = FaultSchedule.draw(settings.seed(), settings.duration(),
                    Nemesis.kinds(target).stream().filter(faultFilter).filter(path::plays).toList(),
                    path.holderFaults() != null ? FaultSchedule.Holders.ONE_SERVICE
                            : settings.localEffects() ? FaultSchedule.Holders.AS_DRAWN : FaultSchedule.Holders.CHILD_PER_CHARGE);
            // A path whose own JVM holds every key (the sample's) plays the holder faults on it; else a child per fault.
            List<ChildHolderFaults.Planned> holderFaults = path.holderFaults() != null ? List.of()
                    : planHolders(schedule, workload, config, calls, path);
            List<Workload.Request> requests = new ArrayList<>(workload.requests());
            requests.addAll(JumpedHolders.plan(schedule, workload.requests().size() + holderFaults.size(),
                    settings.lease()));
            CountDownLatch answered = new CountDownLatch(Workload.calls(requests) * path.clients().size()
                    + holderFaults.stream().mapToInt(planned -> 1 + planned.retries().size()).sum());
            if (!holderFaults.isEmpty()) {
                providerService = ProviderService.start(provider);
            }
            HolderFaults holders = path.holderFaults() != null ? path.holderFaults() : holderFaults.isEmpty() ? null
                    : new ChildHolderFaults(
                    StoreEndpoint.sameAs(target.store()).orElseThrow(), StoreEndpoint.prefixOf(target.store()),
                    providerService.uri(), settings.lease(), start, holderFaults,
                    planned -> sendRetries(planned, path, answered, followUps), answered::countDown,
                    path instanceof LocalEffectsPath);
            Nemesis nemesis = new Nemesis(target, rejectingStages, schedule, holders, start);
            long bound = 0;
            long scheduled = System.nanoTime();
            followUps.start((caller, record, done) -> path.send(caller, record, done),
                    calls.size() + Workload.calls(requests) * path.clients().size());
            AtomicInteger freshKeys = new AtomicInteger(requests.size() + holderFaults.size());
            if (landed != null && settings.through() == Through.COORDINATOR) {
                // As each long loss of replies begins, a call of its own on a fresh key (FailOpenFollowUps), where
                // the run watches reserves land: on the coordinator's own path (a layer makes its calls elsewhere).
                target.whenRepliesAreLost(length -> {
                    if (length.compareTo(FaultSchedule.LONG_OUTAGE) >= 0) {
                        int key = freshKeys.getAndIncrement();
                        followUps.sendAsRepliesAreLost(path.historyKey(key, 0), path.clients().get(0));
                    }
                });
            } else if (settings.through() == Through.SAMPLE) {
                // The sample fails closed: as each long loss of replies begins, a call on a fresh key and its retry
                // 50 ms later, both out while the store answers nothing. A service that failed open there would
                // charge twice; the workload's own keys meet such an outage with two callers out only by chance.
                // On PostgreSQL the sample's orders share the store's server, and a call that gave up on the store
                // while replies were still lost could not write its order either: there two such pairs, each on a
                // fresh key, are sent late enough that their calls give up (the 2 s socket timeout) about as the
                // loss ends, or after it.
                Workload.Caller any = workload.requests().get(0).callers().get(0);
                List<Long> delays = target instanceof PostgresTarget ? RACE_DELAYS_ON_POSTGRES_MILLIS : List.of(0L);
                target.whenRepliesAreLost(length -> {
                    if (length.compareTo(FaultSchedule.LONG_OUTAGE) >= 0) {
                        for (long delay : delays) {
                            int key = freshKeys.getAndIncrement();
                            followUps.raceAsRepliesAreLost(path.historyKey(key, 0), path.clients().get(0),
                                    path.policy(any), path.onStoreFailure(any), delay);
                        }
                    }
                });
            }
            for (Workload.Request request : requests) {
                for (int client = 0; client < path.clients().size(); client++) {
                    for (int i = 0; i < request.callers().size(); i++) {
                        Workload.Caller caller = request.callers().get(i);
                        CallRecord record = new CallRecord(calls.size(), path.historyKey(request.key(), client), i,
                                caller.async(), path.policy(caller), path.onStoreFailure(caller), bound(config, caller));
                        record.sentBy(path.clients().get(client));
                        bound = Math.max(bound, record.boundNanos);
                        calls.add(record);
                        launcher.schedule(() -> path.send(caller, record, done(record, answered, followUps)),
                                caller.atMillis(), TimeUnit.MILLISECONDS);
                    }
                }
            }
            nemesis.start();
            try {
                awaitAnswers(answered, followUps, calls, nemesis, bound, scheduled);
            } finally {
                // A fault still running sends no more calls of its own; one it sent before is waited for.
                followUps.stopSendingAsRepliesAreLost();
                faults = nemesis.stop();
                stalls = watch.stop();
                followUps.awaitNone(bound(config).toMillis(), TimeUnit.MILLISECONDS);
            }
            // A holder fault the nemesis never came to (the run gave up first) sent nothing: no calls of it.
            for (ChildHolderFaults.Planned planned : holderFaults) {
                if (planned.child().sentAt() == 0) {
                    calls.remove(planned.child());
                    calls.removeAll(planned.retries());
                }
            }
            // The follow-ups of landed fail-opens that were sent (one planned as the run gave up never was).
            followUps.records().stream().filter(record -> record.sentAt() > 0).forEach(calls::add);
            pathViolations = path.check(calls);
            // After the faults: a target that restarted its server reports the one that runs now.
            server = target.server();
            stats = path.stats();
        } finally {
            // Each closed whatever the one before it threw: a server that did not stop cleanly leaves no
            // provider service or executor running behind it.
            try {
                if (closing != null) {
                    closing.close();
                }
            } finally {
                try {
                    if (landed != null) {
                        landed.close();
                    }
                } finally {
                    try {
                        if (providerService != null) {
                            providerService.close();
                        }
                    } finally {
                        launcher.shutdownNow();
                        syncCallers.shutdownNow();
                        asyncStages.shutdownNow();
                        rejectingStages.shutdownNow();
                    }
                }
            }
        }
        NemesisHistory history = new NemesisHistory(settings, server, calls, faults, provider.ledger(),
                System.nanoTime() - start, stats, stalls);
        return new NemesisResult(history, ClientIsolationCheck.addTo(NemesisChecker.check(history), history)
                .with(pathViolations).with(NemesisChecker.vacuity(history)), null);
    }

    /**
     * The run's provider: charging at once, deduplicating on the key where the settings say; through the
     * sample, observed and slowed by {@code sampleCharges} (each charge taking its request's action length).
     */
    private FakePaymentProvider provider(SampleCharges sampleCharges) {
        FakePaymentProvider.Builder builder = FakePaymentProvider.builder().deduplicateOnKey(settings.downstreamKey());
        if (sampleCharges == null) {
            return builder.latency(Duration.ZERO).build();
        }
        return builder.latency(sampleCharges).observer(sampleCharges).build();
    }

    /** When each charge of a run through the sample reached the provider, and how long it takes: its request's action. */
    private SampleCharges sampleCharges(Workload workload) {
        List<Workload.Request> requests = workload.requests();
        return new SampleCharges(key -> {
            int request = HttpClients.requestOf(key);
            return request >= 0 && request < requests.size() ? requests.get(request).callers().get(0).actionMillis() : 0;
        }, start);
    }

    /**
     * The records of the schedule's holder faults, on keys past the workload's own, appended to
     * {@code calls}: each child's call, then its in-process retries.
     */
    private List<ChildHolderFaults.Planned> planHolders(FaultSchedule schedule, Workload workload,
                                                        IdempotencyConfig config, List<CallRecord> calls,
                                                        CallPath path) {
        List<ChildHolderFaults.Planned> planned = new ArrayList<>();
        for (HolderPlan plan : HolderPlan.draw(settings.seed(), schedule, workload.requests().size(), settings.lease(),
                path instanceof LocalEffectsPath)) {
            CallRecord child = CallRecord.ofChild(calls.size(), plan.key(), CHILD_BOUND.toNanos());
            calls.add(child);
            List<CallRecord> retries = new ArrayList<>();
            for (int i = 0; i < plan.retries().size(); i++) {
                Workload.Caller caller = plan.retries().get(i);
                CallRecord retry = new CallRecord(calls.size(), plan.key(), i + 1, caller.async(), caller.policy(),
                        path.onStoreFailure(caller), bound(config, caller));
                calls.add(retry);
                retries.add(retry);
            }
            planned.add(new ChildHolderFaults.Planned(plan, child, retries));
        }
        return planned;
    }

    /** Sends a holder fault's in-process retries, each at its time from now (the child holds the key). */
    private void sendRetries(ChildHolderFaults.Planned planned, CallPath path, CountDownLatch answered,
                             FailOpenFollowUps followUps) {
        for (int i = 0; i < planned.retries().size(); i++) {
            Workload.Caller caller = planned.plan().retries().get(i);
            CallRecord record = planned.retries().get(i);
            launcher.schedule(() -> path.send(caller, record, done(record, answered, followUps)), caller.atMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** What runs once {@code record}'s call answered: the follow-ups told (it may have failed open on a landed reserve), then counted. */
    private static Runnable done(CallRecord record, CountDownLatch answered, FailOpenFollowUps followUps) {
        return () -> {
            followUps.answered(record);
            answered.countDown();
        };
    }

    /**
     * How long a call may take before it counts as hung: a whole wait, its own action, the lease of a
     * holder that died, and a few store patiences (reserve, complete, a contention again), plus slack.
     */
    private static long bound(IdempotencyConfig config, Workload.Caller caller) {
        return bound(config).plusMillis(caller.actionMillis()).toNanos();
    }

    /** {@link #bound(IdempotencyConfig, Workload.Caller)} without the call's own action. */
    private static Duration bound(IdempotencyConfig config) {
        return config.waitTimeout().plus(config.lease().multipliedBy(2)).plus(config.storePatience().multipliedBy(3))
                .plus(SLACK);
    }

    /**
     * Waits for every call's answer, telling the progress every few seconds, at most until the last could
     * have answered: the workload's end (its requests were scheduled at {@code scheduled}) plus the longest
     * bound, or later where a call was sent late (a
     * holder fault near the end, whose child's bound covers the retries it sends).
     */
    private void awaitAnswers(CountDownLatch answered, FailOpenFollowUps followUps, List<CallRecord> calls,
                              Nemesis nemesis, long bound, long scheduled) throws InterruptedException {
        long workloadEnd = scheduled + settings.duration().toNanos() + bound;
        while (!answered.await(5, TimeUnit.SECONDS) || !followUps.awaitNone(5, TimeUnit.SECONDS)) {
            long now = System.nanoTime();
            long giveUpAt = workloadEnd;
            for (CallRecord call : followUps.records()) {
                if (call.sentAt() > 0) {
                    giveUpAt = Math.max(giveUpAt, start + call.sentAt() + call.boundNanos);
                }
            }
            for (CallRecord call : calls) {
                if (call.sentAt() > 0) {
                    giveUpAt = Math.max(giveUpAt, start + call.sentAt() + call.boundNanos);
                }
            }
            long elapsed = now - start;
            String when = elapsed <= settings.duration().toNanos()
                    ? String.format(java.util.Locale.ROOT, "%.0f s of %d", elapsed / 1e9, settings.duration().toSeconds())
                    : String.format(java.util.Locale.ROOT, "%.0f s, requests over at %d s, waiting for answers",
                            elapsed / 1e9, settings.duration().toSeconds());
            progress.accept(String.format(java.util.Locale.ROOT, "%s: %s, %,d of %,d calls answered, %d faults",
                    backend.name(), when, calls.size() - answered.getCount(), calls.size(), nemesis.injected()));
            if (now - giveUpAt > 0) {
                return;
            }
        }
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
