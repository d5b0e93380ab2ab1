package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * Deletes a store's expired rows on a thread of its own, batch after batch for as long as a batch
 * comes back full, so that the sweep keeps up with any stream of writes and no request waits on it.
 * A write only wakes it ({@link #wake()}: a flag and, at most once per sweep, a task). Between two
 * batches it pauses as long as the last one took: while a backlog lasts, sweeping takes about half
 * of one connection's time, never more than one connection. The rate thus follows the backlog:
 * one short batch per wake when little has expired, continuous batches when much has.
 *
 * <p>Expired rows are harmless (they count as absent and are taken over in place): a failed batch
 * ends the sweep, and the next wake starts another. Thread-safe.
 */
final class ExpirySweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExpirySweeper.class);

    private final int batch;
    private final IntSupplier deleteBatch;
    private final ExecutorService thread;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final LongAdder deleted = new LongAdder();

    /**
     * @param table the table, for the thread's name
     * @param batch the most rows {@code deleteBatch} deletes at once
     * @param deleteBatch deletes up to {@code batch} expired rows and says how many it deleted
     */
    ExpirySweeper(String table, int batch, IntSupplier deleteBatch) {
        this.batch = batch;
        this.deleteBatch = deleteBatch;
        this.thread = Executors.newSingleThreadExecutor(task -> {
            Thread sweeper = new Thread(task, "idempotency-sweeper-" + table);
            sweeper.setDaemon(true);
            return sweeper;
        });
    }

    /** Starts a sweep unless one is running; never blocks. */
    void wake() {
        if (sweeping.compareAndSet(false, true)) {
            try {
                thread.execute(this::sweep);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                sweeping.set(false);
            }
        }
    }

    /** Rows this sweeper deleted so far. */
    long deleted() {
        return deleted.sum();
    }

    private void sweep() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                long start = System.nanoTime();
                int rows = deleteBatch.getAsInt();
                deleted.add(rows);
                if (rows < batch) {
                    return;
                }
                LockSupport.parkNanos(System.nanoTime() - start);
            }
        } catch (IdempotencyStoreException e) {
            LOG.debug("a sweep of expired idempotency records failed; the next write starts another", e);
        } finally {
            sweeping.set(false);
        }
    }

    /** Stops sweeping: a batch in flight is interrupted, and no sweep starts again. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
