package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A network store's circuit breaker (Resilience4j), for store implementations: once the server was
 * unreachable, calls fail in microseconds for a cool-down instead of each waiting out a connection
 * timeout, and the first call after it is the probe that closes the circuit again. Only
 * unreachable-server failures ({@link Failure#UNREACHABLE}) open it: a timed-out statement is a stall
 * the coordinator may wait out, and an unreadable record is an answer.
 *
 * <p>Needs {@code resilience4j-circuitbreaker} at run time, an optional dependency of this module that
 * every network store brings.
 *
 * <p>Thread-safe.
 */
public final class StoreCircuit {

    private final CircuitBreaker breaker;
    private final Duration coolDown;
    private final String store;

    /**
     * @param store the store's name, for the exceptions it throws ({@code redis}, {@code postgres})
     * @param name the breaker's name: which server or table it guards
     * @param coolDown how long the circuit stays open before a probe may pass
     */
    public StoreCircuit(String store, String name, Duration coolDown) {
        this.store = store;
        this.coolDown = coolDown;
        this.breaker = CircuitBreaker.of(name, CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(1)
                .minimumNumberOfCalls(1)
                .failureRateThreshold(100)
                .waitDurationInOpenState(coolDown)
                .permittedNumberOfCallsInHalfOpenState(1)
                .recordException(e -> e instanceof IdempotencyStoreException failed
                        && failed.failure() == Failure.UNREACHABLE)
                .build());
    }

    /**
     * Runs {@code call} through the breaker; an open circuit fails it at once as {@link Failure#CIRCUIT_OPEN}.
     * While the circuit is closed the call runs directly and only an unreachable server is recorded:
     * with a window of one call and a threshold of 100 %, a success recorded in the closed state never
     * changes the state, and recording it (a clock read and a lock per call) is every call's cost.
     */
    public <T> T call(String namespace, Supplier<T> call) {
        if (breaker.getState() == CircuitBreaker.State.CLOSED) {
            try {
                return call.get();
            } catch (IdempotencyStoreException e) {
                if (e.failure() == Failure.UNREACHABLE) {
                    breaker.onError(0, TimeUnit.NANOSECONDS, e);
                }
                throw e;
            }
        }
        try {
            return breaker.executeSupplier(call);
        } catch (CallNotPermittedException open) {
            throw new IdempotencyStoreException(store, namespace, Failure.CIRCUIT_OPEN,
                    "the server was unreachable moments ago; calls fail fast until a probe after "
                            + coolDown.toMillis() + " ms finds it again", open);
        }
    }

    /** The breaker's state, for tests and outputs. */
    public String state() {
        return breaker.getState().name();
    }
}
