package dev.idemlab.lab.nemesis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.faults.TcpProxy;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.Signals;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * PostgreSQL under the nemesis: the store's pool connects through a TCP proxy (freeze, dropped
 * replies, dropped requests, resets), and on a private server (one the lab started, so no one else's
 * clients are hit) a JDBC connection of the nemesis's own, straight to the server, terminates the
 * store's backends, locks its table, and stops the store's backends with {@code SIGSTOP}. A server
 * given by URL gets the proxy's faults only.
 *
 * <p>On a private server, replies are lost on a busy server: the table is locked for the fault's first
 * {@link #BUSY_MILLIS}, so that the statements the pool sends meanwhile queue on the server, then the
 * proxy starts dropping replies and the lock is let go, and those statements run with no one to tell.
 * Replies dropped on an idle server (the proxy alone) met only the few statements in flight at that
 * instant; a reserve among them, whose caller then fails open on a marker that did land, was rare (0 to
 * 3 a minute), and the store's pool sends nothing new while every connection waits on a lost reply.
 */
final class PostgresTarget extends NemesisTarget {

    private static final String STORE_BACKENDS = "SELECT pid FROM pg_stat_activity "
            + "WHERE application_name LIKE 'idempotency-store%' AND pid <> pg_backend_pid()";

    /** How long the nemesis waits for the store's pool to fill before the workload starts anyway. */
    private static final Duration WARM_UP_BOUND = Duration.ofSeconds(20);
    /** How long a drop of replies on a private server first holds the table (well within the statement timeout). */
    static final long BUSY_MILLIS = 300;

    private final TcpProxy proxy;
    private final PostgresIdempotencyStore store;
    /** The same records, read on connections of the nemesis's own, straight to the server. */
    private final PostgresIdempotencyStore witness;
    private final HikariDataSource witnessPool;
    private final Connection admin;
    private final boolean privateServer;
    private final List<Long> stopped = new ArrayList<>();

    PostgresTarget(PostgresBackend backend) throws IOException {
        super(backend.server());
        InetSocketAddress server = backend.address();
        this.proxy = TcpProxy.to(server.getHostString(), server.getPort());
        PostgresIdempotencyStore opened = null;
        HikariDataSource pool = null;
        PostgresIdempotencyStore witnessing = null;
        try {
            opened = backend.openStoreThrough(proxy.port());
            pool = witnessPool(backend);
            witnessing = PostgresIdempotencyStore.open(pool, opened.config());
            this.admin = DriverManager.getConnection(backend.jdbcUrl(), backend.user(), backend.password());
        } catch (SQLException | RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            if (witnessing != null) {
                witnessing.close();
            }
            if (pool != null) {
                pool.close();
            }
            proxy.close();
            throw new IOException("the nemesis could not set up PostgreSQL: " + e.getMessage(), e);
        }
        this.store = opened;
        this.witness = witnessing;
        this.witnessPool = pool;
        Origin origin = backend.server().origin();
        this.privateServer = origin == Origin.BUNDLED || origin == Origin.SYSTEM;
        warmUp();
    }

    /**
     * Fills the store's pool before the workload starts, as a service's readiness check would. The pool
     * opens one connection and grows one backend at a time while calls queue for it: the burst of calls
     * as the run began waited on new backends beyond the patience while every JVM of a parallel run was
     * starting, and failed open with no fault on (the published run's only two PostgreSQL violations,
     * both in its first ten seconds). Lookups on a thread per connection keep calls queued until the
     * server shows the whole pool, or a bound passes; the workload starts either way.
     */
    private void warmUp() {
        int wanted = store.config().maxPoolSize();
        ExecutorService lookups = Executors.newFixedThreadPool(wanted);
        long giveUpAt = System.nanoTime() + WARM_UP_BOUND.toNanos();
        try {
            while (storeConnections() < wanted && System.nanoTime() - giveUpAt < 0) {
                List<Future<?>> round = new ArrayList<>();
                for (int i = 0; i < wanted; i++) {
                    round.add(lookups.submit(() -> {
                        for (int n = 0; n < 200; n++) {
                            try {
                                store.lookup("nemesis.warm-up:pool");
                            } catch (IdempotencyStoreException poolStillSlow) {
                                // a wait for a connection past the pool's timeout: what the warm-up waits out
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> lookup : round) {
                    lookup.get();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | SQLException | RuntimeException e) {
            // Not ready, but the run can still begin: a call that fails open for it is the checker's to judge.
        } finally {
            lookups.shutdownNow();
        }
    }

    /**
     * Two connections straight to the server, under an application name of their own (the faults played on
     * the store's backends pick them by theirs), with the store's connect and socket timeouts.
     */
    private static HikariDataSource witnessPool(PostgresBackend backend) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(backend.jdbcUrl());
        config.setUsername(backend.user());
        config.setPassword(backend.password());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(1000);
        config.setPoolName("nemesis-witness");
        config.addDataSourceProperty("ApplicationName", "nemesis-witness");
        config.addDataSourceProperty("connectTimeout", "1");
        config.addDataSourceProperty("socketTimeout", "2");
        return new HikariDataSource(config);
    }

    private int storeConnections() throws SQLException {
        try (Statement statement = admin.createStatement();
             ResultSet count = statement.executeQuery("SELECT count(*) FROM pg_stat_activity "
                     + "WHERE application_name = 'idempotency-store'")) {
            return count.next() ? count.getInt(1) : 0;
        }
    }

    @Override
    IdempotencyStore store() {
        return store;
    }

    /**
     * The store's records as connections the proxy does not carry see them: a reserve whose reply was lost
     * shows there as it lands, while the store's own connections still wait on the lost reply and its
     * lease runs out before they can read it.
     */
    @Override
    IdempotencyStore witness() {
        return witness;
    }

    @Override
    List<FaultKind> kinds() {
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET));
        if (privateServer) {
            // Faults played on the server itself reach every client of it: only on a server the lab started.
            kinds.addAll(List.of(FaultKind.KILL_CONNECTIONS, FaultKind.LOCK_TABLE, FaultKind.STOP_BACKENDS));
        }
        kinds.add(FaultKind.DROP_REQUESTS);
        return kinds;
    }

    @Override
    void inject(FaultKind kind, Duration length) throws SQLException {
        switch (kind) {
            case KILL_CONNECTIONS -> {
                try (Statement statement = admin.createStatement()) {
                    statement.execute(STORE_BACKENDS.replace("SELECT pid", "SELECT pg_terminate_backend(pid)"));
                }
            }
            case LOCK_TABLE -> lockTable(length);
            case STOP_BACKENDS -> stopBackends(length);
            case FREEZE -> {
                proxy.freeze();
                try {
                    hold(length);
                } finally {
                    proxy.unfreeze();
                }
            }
            case DROP_REPLIES -> {
                if (privateServer) {
                    dropRepliesOnABusyServer(length);
                } else {
                    RedisTarget.dropReplies(proxy, length);
                }
            }
            case DROP_REQUESTS -> RedisTarget.dropRequests(proxy, length);
            case RESET -> proxy.reset();
            default -> throw new IllegalArgumentException(kind.id() + " is not a fault of the postgres store");
        }
    }

    private void lockTable(Duration length) throws SQLException {
        whileTableLocked(() -> hold(length));
    }

    /** Runs {@code held} while another transaction, the nemesis's own, holds the store's table; then lets go. */
    private void whileTableLocked(Runnable held) throws SQLException {
        admin.setAutoCommit(false);
        try (Statement statement = admin.createStatement()) {
            statement.execute("LOCK TABLE " + store.config().table() + " IN ACCESS EXCLUSIVE MODE");
            held.run();
        } finally {
            admin.rollback();
            admin.setAutoCommit(true);
        }
    }

    /** Replies dropped for {@code length}, the first {@link #BUSY_MILLIS} of it with the table locked. */
    private void dropRepliesOnABusyServer(Duration length) throws SQLException {
        Duration busy = Duration.ofMillis(Math.min(BUSY_MILLIS, length.toMillis() / 2));
        boolean[] dropping = {false};
        try {
            whileTableLocked(() -> {
                repliesLost(length);
                hold(busy);
                proxy.dropReplies(true);
                dropping[0] = true;
            });
            hold(length.minus(busy));
        } finally {
            if (dropping[0]) {
                proxy.stopDroppingReplies();
            }
        }
    }

    private void stopBackends(Duration length) throws SQLException {
        try (Statement statement = admin.createStatement(); ResultSet pids = statement.executeQuery(STORE_BACKENDS)) {
            while (pids.next()) {
                stopped.add(pids.getLong(1));
            }
        }
        try {
            stopped.forEach(pid -> Signals.sendQuietly("STOP", pid));
            hold(length);
        } finally {
            continueStopped();
        }
    }

    private void continueStopped() {
        stopped.forEach(pid -> Signals.sendQuietly("CONT", pid));
        stopped.clear();
    }

    @Override
    public void close() {
        continueStopped();
        proxy.unfreeze();
        store.close();
        witness.close();
        witnessPool.close();
        try {
            admin.close();
        } catch (SQLException ignored) {
            // closing: the server goes with the backend
        }
        proxy.close();
    }
}
