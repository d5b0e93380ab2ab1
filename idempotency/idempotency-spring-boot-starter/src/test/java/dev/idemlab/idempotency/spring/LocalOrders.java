package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

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

    private long insert(String key, String sku, String placedBy) {
        runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        Long id = jdbc.queryForObject("insert into " + TABLE + " (idempotency_key, sku, placed_by) values (?, ?, ?) "
                + "returning id", Long.class, key, sku, placedBy);
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
