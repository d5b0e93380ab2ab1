package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Calls straight to the coordinator ({@code call} and {@code callAsync}), one coordinator per policy
 * and store-failure mode over the one store: the run as it always was, the same results for the same
 * seed. Thread-safe.
 */
final class CoordinatorPath implements CallPath {

    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    private final Map<String, IdempotencyCoordinator> coordinators;
    private final FakePaymentProvider provider;
    private final Callers callers;

    CoordinatorPath(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                    FakePaymentProvider provider, Callers callers) {
        this.coordinators = coordinators(settings, store, config);
        this.provider = provider;
        this.callers = callers;
    }

    /** One coordinator per policy and store-failure mode, all over the one store; the post's cache for all under that sabotage. */
    static Map<String, IdempotencyCoordinator> coordinators(NemesisSettings settings, IdempotencyStore store,
                                                            IdempotencyConfig config) {
        Map<String, IdempotencyCoordinator> coordinators = new HashMap<>();
        IdempotencyCoordinator cache = CoordinatorFactory.LIBRARY.create(store, LabPolicy.RUN, config);
        for (InFlightPolicy policy : InFlightPolicy.values()) {
            for (StoreFailureMode mode : StoreFailureMode.values()) {
                coordinators.put(name(policy, mode), settings.sabotage() == Sabotage.RESULT_CACHE ? cache
                        : CoordinatorFactory.LIBRARY.create(store, policy == InFlightPolicy.WAIT ? LabPolicy.WAIT
                                : LabPolicy.RAISE, config.toBuilder().storeFailureMode(mode).build()));
            }
        }
        return coordinators;
    }

    static String name(InFlightPolicy policy, StoreFailureMode mode) {
        return policy + "/" + mode;
    }

    /** The counters of {@code coordinators}, each counted once (the cache stands for all of them under RESULT_CACHE). */
    static IdempotencyStats stats(Map<String, IdempotencyCoordinator> coordinators) {
        return NemesisHistory.sum(new HashSet<>(coordinators.values()).stream().map(IdempotencyCoordinator::stats).toList());
    }

    @Override
    public IdempotencyStats stats() {
        return stats(coordinators);
    }

    @Override
    public void send(Workload.Caller caller, CallRecord record, Runnable answered) {
        IdempotencyCoordinator coordinator = coordinators.get(name(caller.policy(), caller.onStoreFailure()));
        ContextualAction<Charge, Exception> action = context -> charge(provider, callers, caller, record, context);
        send(callers, coordinator, callOf(caller, record), CHARGE, action,
                (charge, how) -> record.answered(callers.now(), charge.id(), how), caller, record, answered);
    }

    /**
     * The call {@code record} makes: its key, and a fingerprint of its order and amount (another amount
     * than the key's usual one where {@code caller} reuses the key with another body, which it records).
     */
    static IdempotentCall callOf(Workload.Caller caller, CallRecord record) {
        int key = record.key;
        if (caller.otherBody()) {
            record.asks(LoadKeys.amount(key) + 1);
        }
        return callOf(key, record.amount());
    }

    /** The call of request {@code key} asking {@code amount}: its key, and a fingerprint of its order and amount. */
    static IdempotentCall callOf(int key, long amount) {
        return IdempotentCall.of(LoadKeys.OPERATION, LoadKeys.key(key),
                Fingerprint.ofFields(Map.of("order_id", LoadKeys.orderId(key), "amount", amount)));
    }

    /** What a caller does with the value it was answered and how it was produced. */
    @FunctionalInterface
    interface Answer<T> {
        void got(T value, Outcome how);
    }

    /**
     * Sends {@code call} to {@code coordinator} as {@code caller} does ({@code call} on a thread of its own,
     * or {@code callAsync}, cancelled where planned), {@code answer} taking what it got.
     */
    static <T> void send(Callers callers, IdempotencyCoordinator coordinator, IdempotentCall call, ResultCodec<T> codec,
                         ContextualAction<T, Exception> action, Answer<T> answer, Workload.Caller caller,
                         CallRecord record, Runnable answered) {
        if (caller.async()) {
            sendAsync(callers, coordinator, call, codec, action, answer, caller, record, answered);
        } else {
            sendSync(callers, coordinator, call, codec, action, answer, record, answered);
        }
    }

    /**
     * The workload's action, as every in-process layer runs it: records its start and fence, takes its
     * time, fails before charging where planned, and charges the provider with the key the coordinator
     * hands it, as a service passes it on (a provider that deduplicates on it charges once only if every
     * path of the coordinator passes the same one).
     */
    static Charge charge(FakePaymentProvider provider, Callers callers, Workload.Caller caller, CallRecord record,
                         IdempotencyContext context) throws InterruptedException {
        started(callers, record, context);
        return charge(provider, caller, record, context);
    }

    /** Records that {@code record}'s action started now, under {@code context}'s fence (none for {@code null}). */
    static void started(Callers callers, CallRecord record, IdempotencyContext context) {
        record.actionStarted(callers.now(), context == null ? IdempotencyContext.NO_FENCE : context.fence());
    }

    /** The action's work once started: its time, its planned failure, its charge. */
    static Charge charge(FakePaymentProvider provider, Workload.Caller caller, CallRecord record,
                         IdempotencyContext context) throws InterruptedException {
        int key = record.key;
        Thread.sleep(caller.actionMillis());
        if (caller.actionFails()) {
            throw new ProviderTimeoutException(LoadKeys.orderId(key));
        }
        String downstream = context != null && context.downstreamKey() != null ? context.downstreamKey()
                : LoadKeys.key(key);
        Charge charge = provider.charge(LoadKeys.orderId(key), record.amount(), downstream);
        record.charged(charge.id());
        return charge;
    }

    private static <T> void sendSync(Callers callers, IdempotencyCoordinator coordinator, IdempotentCall call,
                                     ResultCodec<T> codec, ContextualAction<T, Exception> action, Answer<T> answer,
                                     CallRecord record, Runnable answered) {
        callers.sync().execute(() -> {
            record.sent(callers.now());
            try {
                IdempotentResult<T> result = LandedReserves.calling(record,
                        () -> coordinator.call(call, codec, action));
                answer.got(result.value(), result.outcome());
            } catch (Throwable failure) {
                record.failed(callers.now(), failure);
            } finally {
                answered.run();
            }
        });
    }

    private static <T> void sendAsync(Callers callers, IdempotencyCoordinator coordinator, IdempotentCall call,
                                      ResultCodec<T> codec, ContextualAction<T, Exception> action, Answer<T> answer,
                                      Workload.Caller caller, CallRecord record, Runnable answered) {
        record.sent(callers.now());
        CompletableFuture<IdempotentResult<T>> stage;
        try {
            stage = coordinator.callAsync(call, codec, action,
                    record.id % 2 == 0 ? callers.asyncStages() : callers.rejectingStages()).toCompletableFuture();
        } catch (Throwable failure) {
            record.failed(callers.now(), failure);
            answered.run();
            return;
        }
        stage.whenComplete((result, failure) -> {
            if (failure != null) {
                record.failed(callers.now(), unwrap(failure));
            } else {
                answer.got(result.value(), result.outcome());
            }
            answered.run();
        });
        cancelLater(callers, caller, record, stage);
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** Cancels {@code stage} when {@code caller} plans to, and records the cancel if it won. */
    static void cancelLater(Callers callers, Workload.Caller caller, CallRecord record, CompletableFuture<?> stage) {
        if (caller.cancels()) {
            callers.launcher().schedule(() -> {
                if (stage.cancel(true)) {
                    record.cancelled(callers.now());
                }
            }, caller.cancelAfterMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void close() {
        // The coordinators' threads are shared and daemon; nothing of this path's own to stop.
    }
}
