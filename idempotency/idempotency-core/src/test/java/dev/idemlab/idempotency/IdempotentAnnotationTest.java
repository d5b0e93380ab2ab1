package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spi.TransactionalAction;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 26: {@code @Idempotent} on an interface's method, without any framework. The proxy takes the
 * key from the {@code @IdempotencyKey} parameter, the fingerprint from the named parameters and paths,
 * the codec from the return type, and hands the action its context; every mistake is refused when the
 * proxy is created, naming the method. On the real in-memory store; the implementation counts what it
 * charged, and that count is what is asserted.
 */
class IdempotentAnnotationTest {

    record ChargeRequest(String orderId, long amount) { }

    record Charge(String id, String orderId, long amount, String downstreamKey, long fence) { }

    interface Payments {
        @Idempotent(operation = "payment.charge", fingerprint = {"request.orderId", "request.amount"})
        Charge charge(@IdempotencyKey String key, ChargeRequest request, IdempotencyContext context);

        @Idempotent(operation = "payment.refund")
        CompletableFuture<Charge> refundLater(@IdempotencyKey String key, String chargeId, long amount);

        String name();
    }

    /** A provider that charges every time it is asked, and remembers each charge. */
    static final class CountingPayments implements Payments {
        final List<Charge> charged = new CopyOnWriteArrayList<>();
        final AtomicInteger ids = new AtomicInteger();
        final Semaphore inside = new Semaphore(0);
        volatile CountDownLatch gate = new CountDownLatch(0);

        @Override
        public Charge charge(String key, ChargeRequest request, IdempotencyContext context) {
            inside.release();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Charge charge = new Charge("ch_" + ids.incrementAndGet(), request.orderId(), request.amount(),
                    context.downstreamKey(), context.fence());
            charged.add(charge);
            return charge;
        }

        @Override
        public CompletableFuture<Charge> refundLater(String key, String chargeId, long amount) {
            Charge refund = new Charge("re_" + ids.incrementAndGet(), chargeId, -amount, null, 0);
            charged.add(refund);
            return CompletableFuture.completedFuture(refund);
        }

        @Override
        public String name() {
            return "counting";
        }
    }

    private final CountingPayments provider = new CountingPayments();
    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
            .build();
    private final Payments payments = Idempotency.proxy(Payments.class, provider, coordinator);

    @Test
    void aRetryWithTheSameKeyReplaysTheFirstChargeAndTheActionGetsItsContext() {
        Charge first = payments.charge("k-1", new ChargeRequest("o-1", 1000), null);
        Charge retry = payments.charge("k-1", new ChargeRequest("o-1", 1000), null);

        assertThat(retry).isEqualTo(first);
        assertThat(provider.charged).containsExactly(first);
        assertThat(first.fence()).as("the context's fencing number").isPositive();
        assertThat(first.downstreamKey()).as("the context's downstream key").isNotBlank();
        assertThat(payments.name()).as("other methods go straight to the target").isEqualTo("counting");
    }

    @Test
    void aWrapperCanRunTheMethodAsATransactionalActionWhoseTransactionCompletesTheRecord() throws Exception {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
        IdempotencyCoordinator local = IdempotencyCoordinator.builder(store).build();
        IdempotentMethod charge = IdempotentMethod.plan(Payments.class.getMethod("charge", String.class,
                ChargeRequest.class, IdempotencyContext.class));
        List<String> transactions = new CopyOnWriteArrayList<>();
        UnaryOperator<ContextualAction<Object, Exception>> inTransaction = action -> new TransactionalAction<>() {
            @Override
            public LocalTransaction<Object, Exception> begin() {
                transactions.add("begun");
                return new LocalTransaction<>() {
                    @Override
                    public Object run(IdempotencyContext context) throws Exception {
                        return action.run(context);
                    }

                    @Override
                    public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                            Duration ttl) {
                        transactions.add("completed with the record");
                        return store.complete(namespace, token, fingerprint, result, ttl);
                    }

                    @Override
                    public void close() {
                        transactions.add("closed");
                    }
                };
            }

            @Override
            public Object run(IdempotencyContext context) throws Exception {
                throw new AssertionError("a call with a key runs in the holder's transaction");
            }
        };
        Object[] arguments = {"k-local", new ChargeRequest("o-local", 700), null};

        Object first = charge.invoke(local, arguments, args -> provider.charge((String) args[0],
                (ChargeRequest) args[1], (IdempotencyContext) args[2]), inTransaction);
        Object replayed = charge.invoke(local, arguments, args -> provider.charge((String) args[0],
                (ChargeRequest) args[1], (IdempotencyContext) args[2]), inTransaction);

        assertThat(replayed).isEqualTo(first);
        assertThat(provider.charged).containsExactly((Charge) first);
        assertThat(transactions).containsExactly("begun", "completed with the record", "closed");
    }

    @Test
    void theSameKeyWithAnotherAmountIsRefusedAndChargesNothing() {
        payments.charge("k-2", new ChargeRequest("o-2", 1000), null);

        assertThatThrownBy(() -> payments.charge("k-2", new ChargeRequest("o-2", 2000), null))
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(provider.charged).hasSize(1);
    }

    @Test
    void aRetryWhileTheFirstCallRunsIsRefusedNotCharged() throws Exception {
        Payments raising = Idempotency.proxy(Payments.class, provider, IdempotencyCoordinator.builder(
                new InMemoryIdempotencyStore()).config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).build())
                .build());
        provider.gate = new CountDownLatch(1);
        ExecutorService callers = Executors.newSingleThreadExecutor();
        try {
            Future<Charge> first = callers.submit(() -> raising.charge("k-3", new ChargeRequest("o-3", 500), null));
            assertThat(provider.inside.tryAcquire(30, TimeUnit.SECONDS)).as("the first call is inside the provider").isTrue();

            assertThatThrownBy(() -> raising.charge("k-3", new ChargeRequest("o-3", 500), null))
                    .isInstanceOf(IdempotencyInProgressException.class);
            provider.gate.countDown();

            Charge charged = first.get(30, TimeUnit.SECONDS);
            assertThat(raising.charge("k-3", new ChargeRequest("o-3", 500), null)).isEqualTo(charged);
            assertThat(provider.charged).containsExactly(charged);
        } finally {
            provider.gate.countDown();
            callers.shutdownNow();
        }
    }

    @Test
    void aMethodReturningAFutureGoesThroughCallAsyncAndReplaysToo() throws Exception {
        Charge first = payments.refundLater("r-1", "ch_9", 300).get(30, TimeUnit.SECONDS);
        Charge retry = payments.refundLater("r-1", "ch_9", 300).get(30, TimeUnit.SECONDS);

        assertThat(retry).isEqualTo(first);
        assertThat(provider.charged).containsExactly(first);
        assertThatThrownBy(() -> payments.refundLater("r-1", "ch_9", 400).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyKeyReuseException.class);
    }

    interface NoKey {
        @Idempotent(operation = "payment.charge")
        Charge charge(String key, long amount);
    }

    interface UnknownParameter {
        @Idempotent(operation = "payment.charge", fingerprint = {"amount"})
        Charge charge(@IdempotencyKey String key, long cents);
    }

    interface UnknownComponent {
        @Idempotent(operation = "payment.charge", fingerprint = {"request.currency"})
        Charge charge(@IdempotencyKey String key, ChargeRequest request);
    }

    interface NothingToReplay {
        @Idempotent(operation = "payment.charge")
        void charge(@IdempotencyKey String key, long amount);
    }

    interface GenericResult {
        @Idempotent(operation = "payment.charge")
        List<Charge> charge(@IdempotencyKey String key, long amount);
    }

    interface AbstractResult {
        @Idempotent(operation = "payment.charge")
        Number charge(@IdempotencyKey String key, long amount);
    }

    interface NumberKey {
        @Idempotent(operation = "payment.charge")
        Charge charge(@IdempotencyKey long key, long amount);
    }

    @Test
    void mistakesAreRefusedWhenTheProxyIsCreatedNamingTheMethodAndTheRule() {
        Map<Class<?>, String> rules = Map.of(
                NoKey.class, "@Idempotent NoKey.charge: no parameter carries @IdempotencyKey",
                UnknownParameter.class, "fingerprint entry 'amount' names no parameter; its parameters are key, cents",
                UnknownComponent.class, "has no component 'currency'",
                NothingToReplay.class, "returns nothing",
                GenericResult.class, "has type parameters",
                NumberKey.class, "the @IdempotencyKey parameter is a long; a key is a String",
                AbstractResult.class, "its result type Number is abstract");
        rules.forEach((type, rule) -> assertThatThrownBy(() -> proxyOf(type))
                .as(type.getSimpleName()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(rule));
        assertThatThrownBy(() -> Idempotency.proxy(CountingPayments.class, provider, coordinator))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not an interface");
    }

    @SuppressWarnings("unchecked")
    private <T> void proxyOf(Class<T> type) {
        Idempotency.proxy(type, (T) java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(),
                new Class<?>[] {type}, (proxy, method, args) -> null), coordinator);
    }
}
