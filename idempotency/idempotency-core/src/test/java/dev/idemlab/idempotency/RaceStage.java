package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Stages the in-flight race with latches instead of timing: each provider call blocks until the
 * test opens its gate, the test learns when a call is inside the provider, and when a caller has
 * found the key held by someone else.
 */
final class RaceStage {

    static final Duration PATIENCE = Duration.ofSeconds(30);

    private final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final Semaphore callsInside = new Semaphore(0);
    private final Semaphore keyFoundHeld = new Semaphore(0);

    final FakePaymentProvider provider = FakePaymentProvider.builder()
            .latency(callNumber -> {
                if (!gate(callNumber).await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate " + callNumber + " was never opened");
                }
            })
            .observer(new ProviderObserver() {
                @Override
                public void callStarted(int callNumber, String orderId, long amount) {
                    callsInside.release();
                }
            })
            .build();

    private CountDownLatch gate(int callNumber) {
        return gates.computeIfAbsent(callNumber, n -> new CountDownLatch(1));
    }

    /** Lets the provider's call number {@code n} finish. */
    void open(int callNumber) {
        gate(callNumber).countDown();
    }

    /** Lets every call finish from now on. */
    void openAll(int upTo) {
        for (int n = 1; n <= upTo; n++) {
            open(n);
        }
    }

    /** Blocks until {@code count} more calls have entered the provider. */
    void awaitCallsInsideProvider(int count) throws InterruptedException {
        if (!callsInside.tryAcquire(count, PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(count + " calls never entered the provider");
        }
    }

    /** Blocks until {@code count} more callers have found the key held by another attempt. */
    void awaitCallersFindingKeyHeld(int count) throws InterruptedException {
        if (!keyFoundHeld.tryAcquire(count, PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(count + " callers never found the key held");
        }
    }

    /** Wraps a real store so that the stage sees every reserve that found someone else's record. */
    IdempotencyStore observe(IdempotencyStore store) {
        return new ForwardingIdempotencyStore(store) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                Reservation answer = super.reserve(namespace, token, fingerprint, lease);
                if (answer instanceof Reservation.Found) {
                    keyFoundHeld.release();
                }
                return answer;
            }
        };
    }

    /** The provider call the tests make: charge order-42 for {@code amount}. */
    static IdempotentCall chargeCall(String key, long amount) {
        return IdempotentCall.of("payment.charge", key,
                Fingerprint.ofFields(Map.of("order_id", "order-42", "amount", amount)));
    }

    static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    /** A caller on {@code callers} that charges order-42 for 10 under key k1 through {@code coordinator.call}. */
    CompletableFuture<IdempotentResult<Charge>> call(IdempotencyCoordinator coordinator, Executor callers) {
        return CompletableFuture.supplyAsync(() -> coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> provider.charge("order-42", 10, "k1")), callers);
    }

    /** The same caller through {@code coordinator.execute}: the charge alone. */
    CompletableFuture<Charge> execute(IdempotencyCoordinator coordinator, Executor callers) {
        return CompletableFuture.supplyAsync(() -> coordinator.execute(chargeCall("k1", 10), CHARGE,
                () -> provider.charge("order-42", 10, "k1")), callers);
    }
}
