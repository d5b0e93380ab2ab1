package dev.idemlab.idempotency;

import dev.idemlab.idempotency.internal.DefaultIdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.StoreDescription;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * Runs an action at most once per {@code (operation, key)} and gives every caller with that key
 * the same result: the first caller reserves the key, runs the action and stores its result; an
 * identical caller that arrives while it runs waits for it or is told to retry (the
 * {@link InFlightPolicy}); one that arrives later replays the stored result.
 *
 * <p>Implementations are thread-safe. Create one per store and configuration, and share it.
 *
 * <pre>{@code
 * IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
 *         .config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).build())
 *         .build();
 * Charge charge = coordinator.execute(
 *         IdempotentCall.of("payment.charge", key, Fingerprint.ofFields(Map.of("order_id", id, "amount", 10))),
 *         ResultCodec.json(Charge.class),
 *         () -> provider.charge(id, 10, key));
 * }</pre>
 */
public interface IdempotencyCoordinator {

    /**
     * Runs {@code action} once for the call's key, or replays the result it produced.
     *
     * @return the action's result, fresh or replayed
     * @throws E whatever the action threw, unchanged; nothing is stored then, so a retry runs it again
     * @throws IdempotencyKeyReuseException if the key was used for a request with another fingerprint
     * @throws IdempotencyInProgressException if an identical request is in flight and the policy is
     *     RAISE, or a WAIT ran out of time
     * @throws IdempotencyStoreUnavailableException if the store failed and the mode is FAIL_CLOSED
     * @throws IdempotentReplayUnavailableException if the key's result was not stored
     * @throws IdempotencyRecordUnreadableException if the store holds a record it cannot read
     * @throws IdempotencyInterruptedException if the thread was interrupted before the action ran
     */
    default <T, E extends Exception> T execute(IdempotentCall call, ResultCodec<T> codec,
                                               IdempotentAction<T, E> action) throws E {
        return execute(call, codec, (ContextualAction<T, E>) action);
    }

    /**
     * Like {@link #execute(IdempotentCall, ResultCodec, IdempotentAction)}, for an action that reads
     * the call's {@link IdempotencyContext}: its fencing number and the downstream key to pass on.
     *
     * @throws E whatever the action threw, unchanged
     */
    default <T, E extends Exception> T execute(IdempotentCall call, ResultCodec<T> codec,
                                               ContextualAction<T, E> action) throws E {
        return call(call, codec, action).value();
    }

    /**
     * Like {@link #execute(IdempotentCall, ResultCodec, IdempotentAction)}, and also says whether the
     * action ran or the result was replayed.
     *
     * @throws E whatever the action threw, unchanged
     */
    default <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                              IdempotentAction<T, E> action) throws E {
        return call(call, codec, (ContextualAction<T, E>) action);
    }

    /**
     * Like {@link #execute(IdempotentCall, ResultCodec, ContextualAction)}, and also says whether the
     * action ran or the result was replayed.
     *
     * @throws E whatever the action threw, unchanged
     */
    <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                      ContextualAction<T, E> action) throws E;

    /**
     * Like {@link #call(IdempotentCall, ResultCodec, ContextualAction)}, without holding a thread while
     * an identical request is in flight: under WAIT the stage completes when the store tells the
     * waiter that the holder finished (or its safety poll or the lease says so). Store calls and the
     * action run on {@code executor}. The stage completes exceptionally with what {@code call} would
     * have thrown: a waiter gives the same answers as {@code call}'s and outlasts storage errors the
     * same way. The stage always completes: when {@code executor} rejects a step (it was shut down,
     * or its queue is full), exceptionally with the {@code RejectedExecutionException}.
     *
     * <p>Cancelling the stage ({@code toCompletableFuture().cancel(...)}) succeeds only before the
     * action starts, while the call reserves or waits: {@code cancel} returns {@code true}, the stage
     * completes as cancelled, and the action never runs; a reservation the call already took is
     * released in the background, so the key is free for a retry. Once the call has started its action
     * (as the key's holder, or failing open), {@code cancel} returns {@code false} and changes nothing:
     * the action is not interrupted, its result is stored as usual (a retry replays it), and the stage
     * completes with it, or with what the action threw. Whether the call was cancelled is decided
     * atomically with the start of the action, so a {@code true} from {@code cancel} always means the
     * action did not run and will not. A stage completed otherwise before the action starts (its
     * {@code complete} or {@code completeExceptionally}, an {@code orTimeout}) does not run the action
     * either; after it started, such a completion only changes what the stage reports. Stages derived
     * from this one ({@code thenApply} and the like) are not the call: cancelling them leaves it alone.
     *
     * <p>This default runs {@code call} on the executor, holding a thread while it waits, and does not
     * look at cancellation; the library's coordinator overrides it.
     */
    default <T, E extends Exception> CompletionStage<IdempotentResult<T>> callAsync(
            IdempotentCall call, ResultCodec<T> codec, ContextualAction<T, E> action, Executor executor) {
        CompletableFuture<IdempotentResult<T>> result = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                result.complete(call(call, codec, action));
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    /** {@link #callAsync(IdempotentCall, ResultCodec, ContextualAction, Executor)} on the common pool. */
    default <T, E extends Exception> CompletionStage<IdempotentResult<T>> callAsync(
            IdempotentCall call, ResultCodec<T> codec, ContextualAction<T, E> action) {
        return callAsync(call, codec, action, ForkJoinPool.commonPool());
    }

    /** The configuration this coordinator runs with. */
    IdempotencyConfig config();

    /** The store it keeps its records in. */
    StoreDescription store();

    /** A snapshot of its counters. */
    IdempotencyStats stats();

    /** A builder for a coordinator over {@code store}; not thread-safe. */
    static Builder builder(IdempotencyStore store) {
        return new Builder(store);
    }

    /** Builds an {@link IdempotencyCoordinator}. Not thread-safe. */
    final class Builder {

        private final IdempotencyStore store;
        private IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        private Ticker ticker = Ticker.system();
        private Object meterRegistry;
        private Object observationRegistry;

        private Builder(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        public Builder config(IdempotencyConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The time source for wait deadlines; tests pass one they advance. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Publishes the counters to Micrometer as {@code idempotency.calls{store,outcome}},
         * {@code idempotency.storage.errors{store,phase}}, {@code idempotency.stale{store}} and
         * {@code idempotency.results.not.stored{store}}. Coordinators sharing a registry and a store
         * name add to the same meters. The key never goes into a tag.
         *
         * <p>Needs {@code io.micrometer:micrometer-core} on the class path: the core declares it
         * optional, so a service that calls this method adds it.
         */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /**
         * Observes every call through {@link #call call} and {@link #execute execute} as Micrometer
         * Observations, which Spring Boot turns into timers and, with a tracer, spans: {@code idempotency.call}
         * and, as its children, {@code idempotency.reserve}, {@code idempotency.wait} (for an in-flight
         * holder), {@code idempotency.action}, {@code idempotency.complete} and {@code idempotency.release}.
         * Each carries the low-cardinality tags {@code operation}, {@code store} and {@code outcome}. The
         * key is never a tag, of either cardinality: it is chosen by clients, so as a metric tag it would
         * make a time series per key, and as a span attribute it would be kept in traces for longer, and
         * shown to more readers, than its record. The action runs with its observation as the current one,
         * so what it observes itself nests under it. Off unless this is called: an unobserved call
         * allocates nothing for it. {@code callAsync} is observed the same way, from the call to its
         * stage's completion (a wait is one observation however many timers it sleeps on; a cancelled
         * stage ends with outcome {@code cancelled}).
         *
         * <p>Needs {@code io.micrometer:micrometer-observation} on the class path (micrometer-core brings it):
         * the core declares it optional.
         */
        public Builder observationRegistry(ObservationRegistry observationRegistry) {
            this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry");
            return this;
        }

        public IdempotencyCoordinator build() {
            return new DefaultIdempotencyCoordinator(store, config, ticker, meterRegistry, observationRegistry);
        }
    }
}
