package dev.idemlab.lab.localeffects;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.store.postgres.JdbcEffect;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
/**
 * Issue 27 on a real PostgreSQL: a local effect (a row of an {@code orders} table in the store's own
 * database) commits with its idempotency record or not at all, and a holder taken over commits nothing.
 */
class LocalEffectsOnPostgresTest extends OrdersOnPostgres {

    @Test
    void theOrderAndItsRecordCommitTogetherAndASecondCallReplays() throws Exception {
        String key = newKey();
        JdbcEffect<Long, SQLException> placeOrder = (connection, context) -> insertOrder(connection, key, "caller");

        IdempotentResult<Long> first = coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(placeOrder));
        IdempotentResult<Long> second = coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(placeOrder));

        assertThat(first.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(second.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(second.value()).isEqualTo(first.value());
        assertThat(ordersOf(key)).containsExactly("caller");
    }

    @Test
    void anEffectThatThrowsAfterInsertingKeepsNeitherOrderNorRecordAndTheRetryInsertsOnce() throws Exception {
        String key = newKey();
        IllegalStateException declined = new IllegalStateException("card declined after the order was written");

        assertThatThrownBy(() -> coordinator.execute(orderCall(key), ORDER_ID, local.inTransaction((connection, context) -> {
            insertOrder(connection, key, "first try");
            throw declined;
        }))).isSameAs(declined);
        assertThat(ordersOf(key)).isEmpty();
        assertThat(store.lookup(orderCall(key).namespace())).isEmpty();

        assertThat(coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(
                (connection, context) -> insertOrder(connection, key, "retry"))).outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).containsExactly("retry");
    }

    @Test
    void aHolderTakenOverWhileItsEffectRanCommitsNothingAndIsFenced() throws Exception {
        String key = newKey();
        IdempotencyCoordinator unrenewed = withDroppedRenewals();
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Future<Long> stale = holders.submit(() -> unrenewed.execute(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> {
                    long id = insertOrder(connection, key, "stale holder");
                    inserted.countDown();
                    assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    return id;
                })));
        assertThat(inserted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitLeaseRanOut(orderCall(key));

        IdempotentResult<Long> taken = coordinator.call(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> insertOrder(connection, key, "new holder")));
        assertThat(taken.outcome()).isEqualTo(Outcome.EXECUTED);
        resume.countDown();

        assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyFencedException.class);
        assertThat(ordersOf(key)).containsExactly("new holder");
        assertThat(unrenewed.stats().count(Outcome.LEASE_LOST)).isEqualTo(1);
        IdempotentResult<Long> replay = coordinator.call(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> insertOrder(connection, key, "late retry")));
        assertThat(replay.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(replay.value()).isEqualTo(taken.value());
        assertThat(ordersOf(key)).containsExactly("new holder");
    }

    @Test
    void aCompletionWhoseConnectionDiedIsUnavailableKeepsNoOrderAndTheRetryInsertsOnce() throws Exception {
        String key = newKey();
        AtomicInteger backend = new AtomicInteger();
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Future<Long> holder = holders.submit(() -> coordinator.execute(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> {
                    long id = insertOrder(connection, key, "holder whose connection dies");
                    backend.set(backendPid(connection));
                    inserted.countDown();
                    assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    return id;
                })));
        assertThat(inserted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        terminate(backend.get());
        resume.countDown();

        assertThatThrownBy(() -> holder.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(503));
        assertThat(ordersOf(key)).isEmpty();

        assertThat(coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(
                (connection, context) -> insertOrder(connection, key, "retry"))).outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).containsExactly("retry");
    }
}
