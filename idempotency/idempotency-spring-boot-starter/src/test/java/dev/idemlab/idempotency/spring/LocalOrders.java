package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Orders written with {@code JdbcTemplate} into the database that holds the idempotency records, each
 * placed once per key through {@link LocalEffect}. The test steers a run by who places it
 * ({@code placedBy}): pause it after its insert, or make it fail after its insert. State sits behind
 * methods: the test holds the bean's proxy.
 */
public class LocalOrders {

    static final String TABLE = "local_orders";
    /** Audit rows whose foreign key is checked at commit: one that names no order fails the commit. */
    static final String AUDIT = "local_order_audit";
    /** Rows whose deferred constraint trigger answers the commit with a deadlock (SQLSTATE 40P01). */
    static final String DEADLOCKS = "local_order_deadlocks";

    /** What placing an order answers. */
    public record PlacedOrder(long id, String sku, int quantity) { }

    /** A checked failure after the order was written, which a plain {@code @Transactional} would commit. */
    public static class CardDeclinedException extends Exception {
        private static final long serialVersionUID = 1L;

        public CardDeclinedException(String message) {
            super(message);
        }
    }

    private record Pause(CountDownLatch inserted, CountDownLatch resume) { }

    private final JdbcTemplate jdbc;
    private final Map<String, Pause> pauses = new ConcurrentHashMap<>();
    private final Map<String, Exception> failures = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final Set<String> failuresAtCommit = ConcurrentHashMap.newKeySet();
    private final Set<String> deadlocksAtCommit = ConcurrentHashMap.newKeySet();
    private final Set<String> connectionsLost = ConcurrentHashMap.newKeySet();
    private final Map<String, RuntimeException> beforeCommit = new ConcurrentHashMap<>();
    private final Map<String, RuntimeException> afterCommit = new ConcurrentHashMap<>();

    public LocalOrders(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Idempotent(operation = "orders.place", fingerprint = {"sku", "quantity"})
    @LocalEffect
    public PlacedOrder place(@IdempotencyKey String key, String sku, int quantity, String placedBy)
            throws CardDeclinedException, InterruptedException {
        long id = insert(key, sku, placedBy);
        Pause pause = pauses.remove(placedBy);
        if (pause != null) {
            pause.inserted().countDown();
            if (!pause.resume().await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never resumed " + placedBy);
            }
        }
        if (failuresAtCommit.remove(placedBy)) {
            jdbc.update("insert into " + AUDIT + " (order_id) values (?)", -id);
        }
        if (deadlocksAtCommit.remove(placedBy)) {
            jdbc.update("insert into " + DEADLOCKS + " (order_id) values (?)", id);
        }
        hooks(placedBy);
        if (connectionsLost.remove(placedBy)) {
            terminateOwnConnection();
        }
        Exception failure = failures.remove(placedBy);
        if (failure instanceof CardDeclinedException declined) {
            throw declined;
        }
        if (failure instanceof RuntimeException unchecked) {
            throw unchecked;
        }
        return new PlacedOrder(id, sku, quantity);
    }

    /** Joins the advice's transaction with a {@code @Transactional} of its own, and marks it rollback-only. */
    @Idempotent(operation = "orders.place-rolled-back", fingerprint = {"sku"})
    @LocalEffect
    @Transactional
    public PlacedOrder placeThenRollBack(@IdempotencyKey String key, String sku, String placedBy) {
        long id = insert(key, sku, placedBy);
        if (failures.remove(placedBy) != null) {
            TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
        }
        return new PlacedOrder(id, sku, 1);
    }

    /** Registers the synchronizations the test asked of {@code placedBy}'s run. */
    private void hooks(String placedBy) {
        RuntimeException before = beforeCommit.remove(placedBy);
        RuntimeException after = afterCommit.remove(placedBy);
        if (before == null && after == null) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                if (before != null) {
                    throw before;
                }
            }

            @Override
            public void afterCommit() {
                if (after != null) {
                    throw after;
                }
            }
        });
    }

    /**
     * Ends the server process behind this transaction's connection, from another connection, and returns
     * once the server says it is gone: the commit then meets a connection the server closed.
     */
    private void terminateOwnConnection() {
        Integer pid = jdbc.queryForObject("select pg_backend_pid()", Integer.class);
        try (Connection other = jdbc.getDataSource().getConnection();
             PreparedStatement terminate = other.prepareStatement("select pg_terminate_backend(?, 30000)")) {
            terminate.setInt(1, pid);
            try (ResultSet ended = terminate.executeQuery()) {
                if (!ended.next() || !ended.getBoolean(1)) {
                    throw new IllegalStateException("the server did not end backend " + pid);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot end backend " + pid + ": " + e.getMessage(), e);
        }
    }

    private long insert(String key, String sku, String placedBy) {
        runs.computeIfAbsent(key == null ? "" : key, k -> new AtomicInteger()).incrementAndGet();
        Long id = jdbc.queryForObject("insert into " + TABLE + " (idempotency_key, sku, placed_by) values (?, ?, ?) "
                + "returning id", Long.class, key == null ? "" : key, sku, placedBy);
        return id == null ? -1 : id;
    }

    /** The next run placed by {@code placedBy} waits after its insert: {@code inserted} opens, then it awaits {@code resume}. */
    public void pauseAfterInsert(String placedBy, CountDownLatch inserted, CountDownLatch resume) {
        pauses.put(placedBy, new Pause(inserted, resume));
    }

    /** The next run placed by {@code placedBy} throws {@code failure} after its insert (or marks rollback-only). */
    public void failAfterInsert(String placedBy, Exception failure) {
        failures.put(placedBy, failure);
    }

    /** The next run placed by {@code placedBy} returns, and its commit fails on a deferred foreign key. */
    public void failAtCommit(String placedBy) {
        failuresAtCommit.add(placedBy);
    }

    /** The next run placed by {@code placedBy} returns, and its commit is answered with a deadlock (40P01). */
    public void deadlockAtCommit(String placedBy) {
        deadlocksAtCommit.add(placedBy);
    }

    /** The next run placed by {@code placedBy} returns after the server ended its connection. */
    public void loseConnectionBeforeCommit(String placedBy) {
        connectionsLost.add(placedBy);
    }

    /** The next run placed by {@code placedBy} registers a before-commit synchronization that throws {@code failure}. */
    public void throwBeforeCommit(String placedBy, RuntimeException failure) {
        beforeCommit.put(placedBy, failure);
    }

    /** The next run placed by {@code placedBy} registers an after-commit synchronization that throws {@code failure}. */
    public void throwAfterCommit(String placedBy, RuntimeException failure) {
        afterCommit.put(placedBy, failure);
    }

    /** How many times a method ran for {@code key}. */
    public int runs(String key) {
        AtomicInteger count = runs.get(key);
        return count == null ? 0 : count.get();
    }

    /** Calls {@link #place} from inside a transaction of its own: refused. */
    public static class Desk {

        private final LocalOrders orders;

        public Desk(LocalOrders orders) {
            this.orders = orders;
        }

        @Transactional
        public PlacedOrder placeInsideTransaction(String key, String placedBy) throws Exception {
            return orders.place(key, "book", 1, placedBy);
        }
    }
}
