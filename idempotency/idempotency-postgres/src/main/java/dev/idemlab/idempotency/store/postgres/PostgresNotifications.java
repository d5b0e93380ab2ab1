package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.CompletionNotifications.Listener;
import dev.idemlab.idempotency.spi.CompletionNotifications.Subscription;
import dev.idemlab.idempotency.spi.NamespaceListeners;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The store's one {@code LISTEN} connection, shared by all its waiters: complete and release of a
 * watched row {@code pg_notify} the store's channel when they commit, saying how the reservation ended
 * ({@link EndingPayload}), and one daemon thread hands each notification to that namespace's
 * listeners, as pgjdbc hands them out of one connection. pgjdbc's {@code getNotifications(timeout)}
 * blocks on the socket, so a notification is handed on as soon as it arrives; the timeout only bounds
 * how long {@link #close()} waits. Started by the first subscription; on a lost connection it reconnects and wakes every
 * waiter, since notifications may have been lost. Thread-safe.
 */
final class PostgresNotifications implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresNotifications.class);
    private static final int POLL_MILLIS = 250;

    private final DataSource dataSource;
    private final String channel;
    private final NamespaceListeners listeners = new NamespaceListeners();
    private final Object startLock = new Object();
    private volatile Thread listener;
    private volatile boolean closed;
    /** Set once the listening connection has run LISTEN, so a subscriber knows no notify is lost from here on. */
    private volatile boolean listening;

    PostgresNotifications(DataSource dataSource, String channel) {
        this.dataSource = dataSource;
        this.channel = channel;
    }

    Subscription subscribe(String storedNamespace, Listener onEnd) {
        Subscription subscription = listeners.add(storedNamespace, onEnd);
        start();
        return subscription;
    }

    private void start() {
        if (listener != null || closed) {
            return;
        }
        synchronized (startLock) {
            if (listener != null) {
                return;
            }
            Thread thread = new Thread(this::listen, "idempotency-postgres-listen-" + channel);
            thread.setDaemon(true);
            listener = thread;
            thread.start();
        }
        // Until LISTEN has run a waiter relies on its re-read and safety poll; give it a moment to start.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!listening && !closed && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private void listen() {
        long pause = 100;
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + channel);
                }
                listeners.fireAll(); // anything that ended while no one listened
                // Set after that wake-up, so a subscriber that start() let through is told only real endings.
                listening = true;
                pause = 100;
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            EndingPayload told = EndingPayload.parse(notification.getParameter());
                            if (told != null) {
                                listeners.fire(told.namespace(), told.ending());
                            }
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (!closed) {
                    LOG.debug("LISTEN {} lost its connection; reconnecting: {}", channel, e.toString());
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pause));
                    pause = Math.min(pause * 2, 2000);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread running = listener;
        if (running != null) {
            running.interrupt();
        }
    }
}
