package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spi.TransactionalAction;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator's side of local effects (issue 27), on the memory store: every way out of a
 * {@link TransactionalAction} leaves the effect and the record together, releases only a reservation
 * this holder still has, and closes the transaction exactly once, before any release (on PostgreSQL
 * the completion's row lock would otherwise hold the release up). The transaction here is a journal
 * written by hand: an effect is an order kept pending until the completion commits it.
 */
class LocalEffectsKeepEffectAndRecordTogetherTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final ResultCodec<String> ORDER_ID = ResultCodec.json(String.class);
    private static final IdempotentCall CALL = IdempotentCall.of("order.create", "k1",
            Fingerprint.ofFields(Map.of("sku", "book", "quantity", 1)));

    private final FakeTicker ticker = new FakeTicker();
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(ticker);
    private final OrderBook orders = new OrderBook();
    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(orders.observe(memory))
            .ticker(ticker).config(IdempotencyConfig.custom().lease(LEASE).build()).build();

    /** What a transaction's effect does: writes an order (pending until committed) and returns its id. */
    @FunctionalInterface
    private interface Effect {
        String write(IdempotencyContext context) throws Exception;
    }

    /** How the transaction's completion ends; by default the memory store's own complete. */
    @FunctionalInterface
    private interface Completion {
        boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl);
    }

    /**
     * A database of orders with one transactional action on it, recording every step in {@link #events}:
     * begin, run, complete, close, the coordinator's releases, and "run alone" for a run without a
     * reservation.
     */
    private static final class OrderBook implements TransactionalAction<String, Exception> {
        final List<String> committed = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final AtomicLong fenceSeen = new AtomicLong(-1);
        volatile Effect effect = context -> "order-1";
        volatile Completion completion;
        volatile RuntimeException beginFailure;
        volatile boolean beginsNothing;

        /** The coordinator's store, with its releases written into {@link #events}. */
        ForwardingIdempotencyStore observe(InMemoryIdempotencyStore store) {
            completion = store::complete;
            return new ForwardingIdempotencyStore(store) {
                @Override
                public boolean release(String namespace, String token) {
                    events.add("release");
                    return super.release(namespace, token);
                }
            };
        }

        @Override
        public LocalTransaction<String, Exception> begin() {
            events.add("begin");
            if (beginFailure != null) {
                throw beginFailure;
            }
            return beginsNothing ? null : new Transaction();
        }

        @Override
        public String run(IdempotencyContext context) throws Exception {
            events.add("run alone");
            String order = effect.write(context);
            committed.add(order);
            return order;
        }

        private final class Transaction implements LocalTransaction<String, Exception> {
            private String pending;

            @Override
            public String run(IdempotencyContext context) throws Exception {
                events.add("run");
                fenceSeen.set(context.fence());
                pending = effect.write(context);
                return pending;
            }

            @Override
            public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                    Duration ttl) {
                events.add("complete");
                boolean completed = completion.complete(namespace, token, fingerprint, result, ttl);
                if (completed) {
                    committed.add(pending);
                }
                return completed;
            }

            @Override
            public void close() {
                events.add("close");
            }
        }
    }

    private String createOrder() throws Exception {
        return coordinator.execute(CALL, ORDER_ID, orders);
    }

    private IdempotencyRecord recordOfTheKey() {
        return memory.lookup(CALL.namespace()).orElse(null);
    }

    /** Takes the key over as another attempt would once this holder's lease ran out. */
    private void anotherAttemptTakesTheKeyOver() {
        ticker.advance(LEASE.plusSeconds(1));
        assertThat(memory.reserve(CALL.namespace(), "new-holder", CALL.fingerprint().hex(), LEASE))
                .isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void theEffectCommitsWithItsRecordAndASecondCallReplaysIt() throws Exception {
        assertThat(createOrder()).isEqualTo("order-1");
        assertThat(coordinator.call(CALL, ORDER_ID, orders).outcome()).isEqualTo(Outcome.REPLAYED);

        assertThat(orders.committed).containsExactly("order-1");
        assertThat(orders.events).containsExactly("begin", "run", "complete", "close");
        assertThat(recordOfTheKey()).isInstanceOf(IdempotencyRecord.Completed.class);
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }

    @Test
    void anEffectThatThrowsIsRolledBackTheKeyReleasedAndTheExceptionRethrownUnchanged() throws Exception {
        Exception declined = new Exception("card declined");
        orders.effect = context -> {
            throw declined;
        };

        assertThatThrownBy(this::createOrder).isSameAs(declined);
        assertThat(orders.events).containsExactly("begin", "run", "close", "release");
        assertThat(orders.committed).isEmpty();
        assertThat(recordOfTheKey()).isNull();
        assertThat(coordinator.stats().count(Outcome.ACTION_FAILED)).isEqualTo(1);

        orders.effect = context -> "order-2";
        assertThat(createOrder()).isEqualTo("order-2");
        assertThat(orders.committed).containsExactly("order-2");
    }

    @Test
    void aCompletionThatFindsTheKeyTakenOverIsFencedAndLeavesTheNewReservationAlone() {
        orders.effect = context -> {
            anotherAttemptTakesTheKeyOver();
            return "order-of-a-stale-holder";
        };

        assertThatThrownBy(this::createOrder).isInstanceOfSatisfying(IdempotencyFencedException.class, e -> {
            assertThat(e.fence()).isEqualTo(orders.fenceSeen.get());
            assertThat(e.httpStatus()).isEqualTo(409);
        });
        assertThat(orders.events).containsExactly("begin", "run", "complete", "close");
        assertThat(orders.committed).isEmpty();
        assertThat(recordOfTheKey()).isInstanceOfSatisfying(IdempotencyRecord.Pending.class,
                pending -> assertThat(pending.token()).isEqualTo("new-holder"));
        assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isEqualTo(1);
        assertThat(coordinator.stats().stale()).isEqualTo(1);
    }

    @Test
    void aStepOfTheEffectFencedByATakeoverIsRethrownAndLeavesTheNewReservationAlone() {
        IdempotencyFencedException[] fenced = new IdempotencyFencedException[1];
        orders.effect = context -> {
            anotherAttemptTakesTheKeyOver();
            fenced[0] = new IdempotencyFencedException(context.operation(), context.key(), context.fence());
            throw fenced[0];
        };

        assertThatThrownBy(this::createOrder).isSameAs(fenced[0]);
        assertThat(orders.events).containsExactly("begin", "run", "close");
        assertThat(recordOfTheKey()).isInstanceOfSatisfying(IdempotencyRecord.Pending.class,
                pending -> assertThat(pending.token()).isEqualTo("new-holder"));
        assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isEqualTo(1);
        assertThat(coordinator.stats().stale()).isEqualTo(1);
    }

    @Test
    void aCompletionThatFailsInTheStoreIsUnavailableReleasesTheKeyAfterClosingAndARetryRunsOnce() throws Exception {
        IdempotencyStoreException reset = new IdempotencyStoreException("memory", CALL.namespace(),
                "connection reset while committing", null);
        orders.completion = (namespace, token, fingerprint, result, ttl) -> {
            throw reset;
        };

        assertThatThrownBy(this::createOrder).isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(503);
            assertThat(e.phase()).isEqualTo(StorePhase.COMPLETE);
            assertThat(e.getCause()).isSameAs(reset);
        });
        assertThat(orders.events).containsExactly("begin", "run", "complete", "close", "release");
        assertThat(orders.committed).isEmpty();
        assertThat(recordOfTheKey()).isNull();
        assertThat(coordinator.stats().count(Outcome.FAILED_CLOSED)).isEqualTo(1);
        assertThat(coordinator.stats().storageErrors().get(StorePhase.COMPLETE)).isEqualTo(1);

        orders.completion = memory::complete;
        assertThat(createOrder()).isEqualTo("order-1");
        assertThat(orders.committed).containsExactly("order-1");
    }

    @Test
    void aCompletionThatBreaksItsContractStillClosesReleasesTheKeyAndRethrows() {
        IllegalStateException broken = new IllegalStateException("a transaction with a bug");
        orders.completion = (namespace, token, fingerprint, result, ttl) -> {
            throw broken;
        };

        assertThatThrownBy(this::createOrder).isSameAs(broken);
        assertThat(orders.events).containsExactly("begin", "run", "complete", "close", "release");
        assertThat(recordOfTheKey()).isNull();
    }

    @Test
    void aTransactionThatCannotBeginIsUnavailableReleasesTheKeyAndRunsNothing() {
        orders.beginFailure = new IdempotencyStoreException("memory", null, "pool exhausted", null);

        assertThatThrownBy(this::createOrder).isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class,
                e -> assertThat(e.httpStatus()).isEqualTo(503));
        assertThat(orders.events).containsExactly("begin", "release");
        assertThat(orders.committed).isEmpty();
        assertThat(recordOfTheKey()).isNull();
    }

    @Test
    void anActionThatBeginsNoTransactionReleasesTheKey() {
        orders.beginsNothing = true;

        assertThatThrownBy(this::createOrder).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("began no transaction");
        assertThat(orders.events).containsExactly("begin", "release");
        assertThat(recordOfTheKey()).as("the key is free for a retry, not held by renewals that never stop").isNull();
        assertThat(coordinator.stats().count(Outcome.ACTION_FAILED)).isEqualTo(1);
    }

    @Test
    void withoutAKeyTheEffectRunsAloneWithoutATransactionOfTheHolder() throws Exception {
        IdempotentCall noKey = IdempotentCall.of(CALL.operation(), null, CALL.fingerprint());

        assertThat(coordinator.call(noKey, ORDER_ID, orders).outcome()).isEqualTo(Outcome.BYPASSED);
        assertThat(orders.events).containsExactly("run alone");
        assertThat(orders.committed).containsExactly("order-1");
    }

    @Test
    void aReserveThatFailsOpenRunsTheEffectAlone() throws Exception {
        IdempotencyCoordinator failingOpen = IdempotencyCoordinator.builder(new ForwardingIdempotencyStore(memory) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                throw new IdempotencyStoreException("memory", namespace, IdempotencyStoreException.Failure.UNREACHABLE,
                        "connection refused", null);
            }
        }).ticker(ticker).build();

        assertThat(failingOpen.call(CALL, ORDER_ID, orders).outcome()).isEqualTo(Outcome.FAILED_OPEN);
        assertThat(orders.events).containsExactly("run alone");
        assertThat(orders.committed).containsExactly("order-1");
    }
}
