package dev.idemlab.lab.policy;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotentAction;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The post's broken baseline, kept on purpose: an Idempotency-Key implemented as a result cache with
 * first-writer-wins. It looks the key up and replays a completed record; otherwise it runs the action,
 * then stores the result unless a record is there, and if another caller stored first it answers with
 * that caller's result. The fingerprint is checked on every path. Responses agree; a retry that
 * arrives while the first call runs charges a second time. Never use it for anything that must happen
 * once: that is what the library's reservation is for.
 *
 * <p>It needs no store operation of its own: its first-writer-wins put is a reserve immediately
 * followed by a complete, so it runs on every store of the library unchanged.
 *
 * <p>Thread-safe.
 */
public final class ResultCacheCoordinator implements IdempotencyCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(ResultCacheCoordinator.class);
    /** How long a put that found another writer's put in progress waits for it to land. */
    private static final Duration PUT_SETTLE = Duration.ofSeconds(1);

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final StoreDescription description;
    private final String tokenPrefix = "cache-" + UUID.randomUUID() + "-";
    private final AtomicLong tokens = new AtomicLong();
    private final Map<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
    private final Map<StorePhase, LongAdder> storageErrors = new EnumMap<>(StorePhase.class);

    public ResultCacheCoordinator(IdempotencyStore store, IdempotencyConfig config) {
        this.store = store;
        this.config = config;
        this.description = store.describe();
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(outcome, new LongAdder());
        }
        for (StorePhase phase : StorePhase.values()) {
            storageErrors.put(phase, new LongAdder());
        }
    }

    @Override
    public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                             ContextualAction<T, E> contextual) throws E {
        // A result cache reserves nothing: no fence, and no downstream key either, as the post's first version.
        IdempotentAction<T, E> action = () -> contextual.run(
                new IdempotencyContext(call.operation(), call.key(), IdempotencyContext.NO_FENCE, null,
                        call.fingerprint().hex()));
        if (!call.hasKey()) {
            return answer(action.run(), Outcome.BYPASSED);
        }
        Optional<IdempotencyRecord> cached;
        try {
            cached = store.lookup(call.namespace());
        } catch (RuntimeException e) {
            storageError(StorePhase.LOOKUP, e);
            return answer(runAction(action), Outcome.FAILED_OPEN);
        }
        if (cached.isPresent()) {
            requireSameFingerprint(call, cached.get());
            if (cached.get() instanceof Completed completed) {
                return answer(decode(call, completed, codec), Outcome.REPLAYED);
            }
        }
        T value = runAction(action);
        Optional<Completed> winner;
        try {
            winner = putIfAbsent(call, codec.encode(value));
        } catch (RuntimeException e) {
            storageError(StorePhase.COMPLETE, e);
            return answer(value, Outcome.FAILED_OPEN);
        }
        if (winner.isPresent()) {
            // Another caller stored first: answer with its result, as a result cache does.
            requireSameFingerprint(call, winner.get());
            return answer(decode(call, winner.get(), codec), Outcome.EXECUTED);
        }
        return answer(value, Outcome.EXECUTED);
    }

    /**
     * First writer wins: a reserve, then at once a complete. Empty if this call stored its result,
     * else the completed record that was there first.
     */
    private Optional<Completed> putIfAbsent(IdempotentCall call, String json) {
        String namespace = call.namespace();
        String token = tokenPrefix + tokens.incrementAndGet();
        long settleBy = System.nanoTime() + PUT_SETTLE.toNanos();
        while (true) {
            Reservation reservation = store.reserve(namespace, token, call.fingerprint().hex(), config.lease());
            if (reservation instanceof Reservation.Acquired) {
                store.complete(namespace, token, call.fingerprint().hex(), StoredResult.of(json), config.ttl());
                return Optional.empty();
            }
            IdempotencyRecord there = ((Reservation.Found) reservation).record();
            if (there instanceof Completed completed) {
                return Optional.of(completed);
            }
            if (System.nanoTime() - settleBy > 0) {
                return Optional.empty(); // another writer's put never landed: keep this caller's own result
            }
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }

    private <T, E extends Exception> T runAction(IdempotentAction<T, E> action) throws E {
        try {
            return action.run();
        } catch (Throwable failure) {
            outcomes.get(Outcome.ACTION_FAILED).increment();
            throw failure;
        }
    }

    private <T> T decode(IdempotentCall call, Completed completed, ResultCodec<T> codec) {
        try {
            return codec.decode(completed.result().json());
        } catch (RuntimeException e) {
            outcomes.get(Outcome.REPLAY_UNAVAILABLE).increment();
            throw new IdempotentReplayUnavailableException(call.operation(), call.key(),
                    "the cached result cannot be decoded: " + e.getMessage(), e);
        }
    }

    private void requireSameFingerprint(IdempotentCall call, IdempotencyRecord record) {
        String requested = call.fingerprint().hex();
        if (!record.fingerprint().equals(requested)) {
            outcomes.get(Outcome.KEY_REUSE).increment();
            throw new IdempotencyKeyReuseException(call.operation(), call.key(), record.fingerprint(), requested,
                    !(record instanceof Completed));
        }
    }

    private <T> IdempotentResult<T> answer(T value, Outcome outcome) {
        outcomes.get(outcome).increment();
        return new IdempotentResult<>(value, outcome);
    }

    private void storageError(StorePhase phase, RuntimeException error) {
        storageErrors.get(phase).increment();
        LOG.warn("result cache on {} failed during {}, answering without it: {}", description.name(), phase,
                error.toString());
    }

    @Override
    public IdempotencyConfig config() {
        return config;
    }

    @Override
    public StoreDescription store() {
        return description;
    }

    @Override
    public IdempotencyStats stats() {
        Map<Outcome, Long> outcomeCounts = new EnumMap<>(Outcome.class);
        outcomes.forEach((outcome, adder) -> outcomeCounts.put(outcome, adder.sum()));
        Map<StorePhase, Long> errorCounts = new EnumMap<>(StorePhase.class);
        storageErrors.forEach((phase, adder) -> errorCounts.put(phase, adder.sum()));
        return new IdempotencyStats(outcomeCounts, errorCounts, 0, 0);
    }
}
