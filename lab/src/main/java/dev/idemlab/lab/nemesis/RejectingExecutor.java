package dev.idemlab.lab.nemesis;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * An executor for asynchronous calls that the nemesis can make reject every task for a while, as an
 * overloaded or shutting-down pool would. Thread-safe.
 */
final class RejectingExecutor implements Executor {

    private final ExecutorService pool;
    private volatile boolean rejecting;

    RejectingExecutor(ExecutorService pool) {
        this.pool = pool;
    }

    void rejecting(boolean on) {
        rejecting = on;
    }

    @Override
    public void execute(Runnable task) {
        if (rejecting) {
            throw new RejectedExecutionException("the nemesis makes this executor reject its tasks");
        }
        pool.execute(task);
    }

    void shutdownNow() {
        pool.shutdownNow();
    }
}
