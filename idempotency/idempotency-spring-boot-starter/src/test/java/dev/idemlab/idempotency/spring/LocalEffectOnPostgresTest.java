package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyException;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spring.LocalOrders.PlacedOrder;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.UnexpectedRollbackException;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @LocalEffect} on a real PostgreSQL that holds both the orders and the idempotency records,
 * through the application's own {@code DataSource} and Spring's transaction manager. Every assertion
 * reads what landed: the orders table and the record's row. A holder is paused on latches, its renewals
 * held back, and the lease runs out by the server's clock, which the test waits for, never by sleeping.
 */
@SpringBootTest(classes = LocalOrdersApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"idempotency.store=postgres", "idempotency.lease=2s", "spring.datasource.username=postgres",
                "spring.datasource.password=postgres"})
@DirtiesContext
class LocalEffectOnPostgresTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static LocalPostgres postgres;

    @Autowired
    LocalOrders orders;

    @Autowired
    LocalOrders.Desk desk;

    @Autowired
    PostgresIdempotencyStore store;

    @Autowired
    IdempotencyCoordinator coordinator;

    @Autowired
    LocalOrdersApplication.RenewalHold renewals;

    @Autowired
    JdbcTemplate jdbc;

    @DynamicPropertySource
    static void datasource(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", LocalEffectOnPostgresTest::startedUrl);
    }

    private static synchronized String startedUrl() {
        try {
            if (postgres == null) {
                postgres = LocalPostgres.start();
            }
            return postgres.jdbcUrl();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the test's PostgreSQL: " + e.getMessage(), e);
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @BeforeEach
    void ordersTable() {
        // No unique key on purpose: a stale holder's uncommitted row must not block the new holder's insert.
        jdbc.execute("create table if not exists " + LocalOrders.TABLE + " (id bigserial primary key, "
                + "idempotency_key text not null, sku text not null, placed_by text not null)");
        jdbc.execute("create table if not exists " + LocalOrders.AUDIT + " (order_id bigint not null references "
                + LocalOrders.TABLE + " (id) deferrable initially deferred)");
        // The server answers a commit that carries a row here with SQLSTATE 40P01, as it does a deadlock
        // found while checking a deferred constraint.
        jdbc.execute("create table if not exists " + LocalOrders.DEADLOCKS + " (order_id bigint not null)");
        jdbc.execute("create or replace function local_order_deadlock() returns trigger language plpgsql as $$ "
                + "begin raise exception 'deadlock detected at commit' using errcode = '40P01'; end $$");
        jdbc.execute("drop trigger if exists local_order_deadlock on " + LocalOrders.DEADLOCKS);
        jdbc.execute("create constraint trigger local_order_deadlock after insert on " + LocalOrders.DEADLOCKS
                + " deferrable initially deferred for each row execute function local_order_deadlock()");
    }

    @Test
    void theOrderAndItsRecordCommitInOneTransactionAndTheRetryReplaysIt() throws Exception {
        String key = newKey();

        PlacedOrder placed = orders.place(key, "book", 1, "caller");
        PlacedOrder replayed = orders.place(key, "book", 1, "retry");

        assertThat(replayed).isEqualTo(placed);
        assertThat(orders.runs(key)).isEqualTo(1);
        assertThat(placedBy(key)).containsExactly("caller");
        assertThat(store.lookup(place(key))).get().isInstanceOf(IdempotencyRecord.Completed.class);
        // One transaction wrote both rows: the order's and the record's last writer are the same.
        assertThat(writerOfOrder(key)).isEqualTo(writerOfRecord(place(key)));
    }

    @Test
    void aMethodThatThrowsAfterItsInsertKeepsNeitherOrderNorRecordAndTheRetryPlacesItOnce() throws Exception {
        String key = newKey();
        IllegalStateException declined = new IllegalStateException("card declined after the order was written");
        orders.failAfterInsert("first try", declined);

        assertThatThrownBy(() -> orders.place(key, "book", 1, "first try")).isSameAs(declined);
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(place(key))).isEmpty();

        PlacedOrder placed = orders.place(key, "book", 1, "retry");
        assertThat(orders.place(key, "book", 1, "second retry")).isEqualTo(placed);
        assertThat(orders.runs(key)).isEqualTo(2);
        assertThat(placedBy(key)).containsExactly("retry");
    }

    @Test
    void aCheckedExceptionRollsTheOrderBackTooUnlikeAPlainTransactional() throws Exception {
        String key = newKey();
        LocalOrders.CardDeclinedException declined = new LocalOrders.CardDeclinedException("declined");
        orders.failAfterInsert("first try", declined);

        assertThatThrownBy(() -> orders.place(key, "book", 1, "first try")).isSameAs(declined);
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(place(key))).isEmpty();

        orders.place(key, "book", 1, "retry");
        assertThat(placedBy(key)).containsExactly("retry");
    }

    @Test
    void aCommitRefusedForTheOrdersDataKeepsNeitherAndRethrowsTheDatabasesError() throws Exception {
        String key = newKey();
        orders.failAtCommit("first try");

        // The database's own answer, as a plain @Transactional reports it; not a 503 of the store.
        assertThatThrownBy(() -> orders.place(key, "book", 1, "first try"))
                .isNotInstanceOf(IdempotencyException.class)
                .hasRootCauseInstanceOf(SQLException.class)
                .rootCause().satisfies(cause -> assertThat(((SQLException) cause).getSQLState()).isEqualTo("23503"));
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(place(key))).isEmpty();

        orders.place(key, "book", 1, "retry");
        assertThat(orders.runs(key)).isEqualTo(2);
        assertThat(placedBy(key)).containsExactly("retry");
    }

    @Test
    void aDeadlockAnsweredToTheCommitKeepsNeitherAndRethrowsTheDatabasesErrorNotAStorageError() throws Exception {
        String key = newKey();
        IdempotencyStats before = coordinator.stats();
        orders.deadlockAtCommit("first try");

        assertThatThrownBy(() -> orders.place(key, "book", 1, "first try"))
                .isNotInstanceOf(IdempotencyException.class)
                .rootCause().satisfies(cause -> assertThat(((SQLException) cause).getSQLState()).isEqualTo("40P01"));
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(place(key))).isEmpty();
        IdempotencyStats after = coordinator.stats();
        assertThat(after.totalStorageErrors()).isEqualTo(before.totalStorageErrors());
        assertThat(after.count(Outcome.ACTION_FAILED)).isEqualTo(before.count(Outcome.ACTION_FAILED) + 1);

        orders.place(key, "book", 1, "retry");
        assertThat(orders.runs(key)).isEqualTo(2);
        assertThat(placedBy(key)).containsExactly("retry");
    }

    @Test
    void aBeforeCommitHookThatThrowsKeepsNeitherRethrowsItUnchangedAndTheRetryPlacesTheOrderOnce() throws Exception {
        String key = newKey();
        IdempotencyStats before = coordinator.stats();
        IllegalStateException refused = new IllegalStateException("a before-commit check refused the order");
        orders.throwBeforeCommit("first try", refused);

        assertThatThrownBy(() -> orders.place(key, "book", 1, "first try")).isSameAs(refused);
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(place(key))).isEmpty();
        IdempotencyStats after = coordinator.stats();
        assertThat(after.totalStorageErrors()).isEqualTo(before.totalStorageErrors());
        assertThat(after.count(Outcome.ACTION_FAILED)).isEqualTo(before.count(Outcome.ACTION_FAILED) + 1);

        PlacedOrder placed = orders.place(key, "book", 1, "retry");
        assertThat(orders.place(key, "book", 1, "second retry")).isEqualTo(placed);
        assertThat(orders.runs(key)).isEqualTo(2);
        assertThat(placedBy(key)).containsExactly("retry");
    }

    @Test
    void anAfterCommitHookThatThrowsLeavesOrderAndRecordCommittedAnswersTheResultAndTheRetryReplaysIt()
            throws Exception {
        String key = newKey();
        IdempotencyStats before = coordinator.stats();
        orders.throwAfterCommit("first try", new IllegalStateException("the order-placed event could not be sent"));

        // Committed: the caller gets what a retry replays, not an error that says nothing landed.
        PlacedOrder placed = orders.place(key, "book", 1, "first try");

        assertThat(placedBy(key)).containsExactly("first try");
        assertThat(store.lookup(place(key))).get().isInstanceOf(IdempotencyRecord.Completed.class);
        assertThat(writerOfOrder(key)).isEqualTo(writerOfRecord(place(key)));
        IdempotencyStats after = coordinator.stats();
        assertThat(after.count(Outcome.EXECUTED)).isEqualTo(before.count(Outcome.EXECUTED) + 1);
        assertThat(after.count(Outcome.ACTION_FAILED)).isEqualTo(before.count(Outcome.ACTION_FAILED));
        assertThat(after.totalStorageErrors()).isEqualTo(before.totalStorageErrors());

        assertThat(orders.place(key, "book", 1, "retry")).isEqualTo(placed);
        assertThat(orders.runs(key)).isEqualTo(1);
        assertThat(placedBy(key)).containsExactly("first try");
    }

    @Test
    void withoutAKeyAConnectionLostUnderTheCommitIsUnavailableAsWithOne() throws Exception {
        String placedBy = "no key, connection lost " + UUID.randomUUID();
        orders.loseConnectionBeforeCommit(placedBy);

        assertThatThrownBy(() -> orders.place(null, "book", 1, placedBy))
                .isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class, unavailable -> {
                    assertThat(unavailable.operation()).isEqualTo("orders.place");
                    assertThat(unavailable.phase()).isEqualTo(StorePhase.COMPLETE);
                    assertThat(unavailable.httpStatus()).isEqualTo(503);
                });
        assertThat(ordersPlacedBy(placedBy)).isZero();

        String withKey = newKey();
        orders.loseConnectionBeforeCommit("with a key");
        assertThatThrownBy(() -> orders.place(withKey, "book", 1, "with a key"))
                .isInstanceOf(IdempotencyStoreUnavailableException.class);
        assertThat(placedBy(withKey)).isEmpty();
        orders.place(withKey, "book", 1, "retry");
        assertThat(placedBy(withKey)).containsExactly("retry");
    }

    @Test
    void withoutAKeyACommitTheServerRefusedRethrowsTheDatabasesErrorAsWithOne() {
        String placedBy = "no key, deadlock " + UUID.randomUUID();
        orders.deadlockAtCommit(placedBy);

        assertThatThrownBy(() -> orders.place(null, "book", 1, placedBy))
                .isNotInstanceOf(IdempotencyException.class)
                .rootCause().satisfies(cause -> assertThat(((SQLException) cause).getSQLState()).isEqualTo("40P01"));
        assertThat(ordersPlacedBy(placedBy)).isZero();
    }

    @Test
    void aTransactionMarkedRollbackOnlyStoresNoRecordAndTheRetryPlacesTheOrderOnce() {
        String key = newKey();
        String namespace = "orders.place-rolled-back:" + key;
        orders.failAfterInsert("first try", new IllegalStateException("rollback-only"));

        assertThatThrownBy(() -> orders.placeThenRollBack(key, "book", "first try"))
                .isInstanceOf(UnexpectedRollbackException.class).hasMessageContaining("rollback-only");
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(namespace)).isEmpty();

        PlacedOrder placed = orders.placeThenRollBack(key, "book", "retry");
        assertThat(orders.placeThenRollBack(key, "book", "second retry")).isEqualTo(placed);
        assertThat(orders.runs(key)).isEqualTo(2);
        assertThat(placedBy(key)).containsExactly("retry");
        assertThat(writerOfOrder(key)).isEqualTo(writerOfRecord(namespace));
    }

    @Test
    void aHolderTakenOverWhileItWasPausedCommitsNoOrderAndIsFenced() throws Exception {
        String key = newKey();
        long lostBefore = coordinator.stats().count(Outcome.LEASE_LOST);
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        orders.pauseAfterInsert("stale holder", inserted, resume);
        renewals.hold(place(key));
        ExecutorService holders = Executors.newSingleThreadExecutor();
        try {
            Future<PlacedOrder> stale = holders.submit(() -> orders.place(key, "book", 1, "stale holder"));
            assertThat(inserted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            Awaitility.await("the stale holder's lease runs out by the server's clock").atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(50)).until(() -> store.lookup(place(key)).isEmpty());

            PlacedOrder taken = orders.place(key, "book", 1, "new holder");
            resume.countDown();

            assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .cause().isInstanceOf(IdempotencyFencedException.class);
            assertThat(placedBy(key)).containsExactly("new holder");
            assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isEqualTo(lostBefore + 1);
            assertThat(orders.place(key, "book", 1, "late retry")).isEqualTo(taken);
            assertThat(placedBy(key)).containsExactly("new holder");
            assertThat(orders.runs(key)).isEqualTo(2);
        } finally {
            resume.countDown();
            holders.shutdownNow();
        }
    }

    @Test
    void aCallInsideTheCallersTransactionIsRefusedBeforeAnythingIsReserved() throws Exception {
        String key = newKey();

        assertThatThrownBy(() -> desk.placeInsideTransaction(key, "inside"))
                .isInstanceOf(IllegalTransactionStateException.class)
                .hasMessageContaining("@LocalEffect LocalOrders.place")
                .hasMessageContaining("inside a transaction");
        assertThat(orders.runs(key)).isZero();
        assertThat(placedBy(key)).isEmpty();
        assertThat(store.lookup(place(key))).isEmpty();

        orders.place(key, "book", 1, "outside");
        assertThat(placedBy(key)).containsExactly("outside");
    }

    private List<String> placedBy(String key) {
        return jdbc.queryForList("select placed_by from " + LocalOrders.TABLE + " where idempotency_key = ? order by id",
                String.class, key);
    }

    private int ordersPlacedBy(String placedBy) {
        Integer count = jdbc.queryForObject("select count(*) from " + LocalOrders.TABLE + " where placed_by = ?",
                Integer.class, placedBy);
        return count == null ? 0 : count;
    }

    /** The transaction that last wrote {@code key}'s order row. */
    private String writerOfOrder(String key) {
        return jdbc.queryForObject("select xmin::text from " + LocalOrders.TABLE + " where idempotency_key = ?",
                String.class, key);
    }

    /** The transaction that last wrote {@code namespace}'s record. */
    private String writerOfRecord(String namespace) {
        return jdbc.queryForObject("select xmin::text from " + store.config().table() + " where namespace = ?",
                String.class, store.keyOf(namespace));
    }

    private static String place(String key) {
        return "orders.place:" + key;
    }

    private static String newKey() {
        return "order-" + UUID.randomUUID();
    }
}
