package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreCircuit;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoreKeys;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store in one PostgreSQL table (see {@code schema.sql} beside this class), reached over JDBC
 * through any {@link DataSource}: {@link #open(DataSource, PostgresStoreConfig)} takes the service's
 * own, and {@link #PostgresIdempotencyStore(PostgresStoreConfig)} builds a small HikariCP pool from
 * the config's URL (HikariCP is then needed on the class path).
 *
 * <p>Every operation runs in its own autocommit transaction, so none is held across an action.
 * {@code reserve} calls the table's reserve function, which reads the live row and, only when there is
 * none, inserts the reservation or takes an expired row over ({@code UPDATE ... WHERE <expired or own
 * token>}): a replay is one index lookup. {@code complete} first tries a plain update of the holder's
 * own live reservation that no waiter marked; what that leaves undecided (a late completion, a row
 * that is someone else's, a watched row whose waiters must be told) goes to the complete function.
 * The functions write conditionally on the owner token and a live lease and notify only a row a
 * waiter marked; {@code release} always calls its function. Expiry is the server's
 * {@code now()}, never this JVM's clock. Expired rows count as absent everywhere and are deleted by
 * {@link #sweepExpired()}, which the store also runs in the background, woken every
 * {@link PostgresStoreConfig#sweepEveryWrites()} writes, batch after batch while a backlog lasts.
 *
 * <p>Namespaces are stored with the configured prefix, so clients with different prefixes share a
 * table without seeing each other's rows. Any failure to reach or understand the server surfaces as
 * {@link IdempotencyStoreException}, and the short timeouts of {@link PostgresStoreConfig} keep that
 * fast. A row the store cannot read is answered as a completed record whose replay fails, never as
 * an absent one (see {@code RecordRows}).
 *
 * <p>Thread-safe.
 */
public final class PostgresIdempotencyStore implements IdempotencyStore, CompletionNotifications {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresIdempotencyStore.class);
    private static final String NAME = "postgres";
    private static final String UNKNOWN_VERSION = "unknown";

    private final PostgresStoreConfig config;
    private final RecordStatements sql;
    private final DataSource pool;
    /**
     * Lease renewals' own connections: a pool of the store's own, also beside a service's HikariCP
     * {@code DataSource}; the service's {@code DataSource} itself only where it is another kind.
     */
    private final DataSource renewals;
    /** The pools this store built and closes; empty when the service passed its own DataSource. */
    private final List<AutoCloseable> ownPools;
    private volatile String address;
    /** Host, port, database and role, for failures' messages: a wrong role or database shows there. */
    private volatile String target;
    private final AtomicLong writes = new AtomicLong();
    private final StoreCircuit circuit;
    private final PostgresNotifications notifications;
    private final ExpirySweeper sweeper;
    private volatile String serverVersion;

    /**
     * Opens a pool on the configured server, applies the schema and reads the server's version.
     *
     * @throws IdempotencyStoreException if the server cannot be reached and
     *     {@link PostgresStoreConfig#requireServerAtStart()} is set, or the schema cannot be applied
     */
    public PostgresIdempotencyStore(PostgresStoreConfig config) {
        this(config, ConnectionPool.open(config), true);
    }

    private PostgresIdempotencyStore(PostgresStoreConfig config, DataSource dataSource, boolean ownsPool) {
        this(config, dataSource, ownsPool, ownsPool ? renewalsBeside(config, dataSource) : renewalsOf(config, dataSource));
    }

    private PostgresIdempotencyStore(PostgresStoreConfig config, DataSource dataSource, boolean ownsPool,
                                     DataSource renewals) {
        this.config = config;
        this.sql = new RecordStatements(config.table());
        this.address = config.jdbcUrl() == null ? "unknown" : ServerAddress.of(config.jdbcUrl());
        String named = config.jdbcUrl() == null ? ServerAddress.target(dataSource)
                : ServerAddress.target(config.jdbcUrl(), config.user());
        this.target = named != null ? named : "the service's DataSource (" + dataSource.getClass().getName() + ")";
        this.pool = dataSource;
        this.renewals = renewals;
        this.ownPools = ownsPool ? List.of((AutoCloseable) dataSource, (AutoCloseable) renewals)
                : renewals != dataSource ? List.of((AutoCloseable) renewals) : List.of();
        if (!ownsPool) {
            ConnectionPool.connectionWaitBeyond(dataSource, config.poolTimeout())
                    .ifPresent(advice -> LOG.warn("postgres store: {}", advice));
        }
        this.notifications = new PostgresNotifications(dataSource, sql.channel);
        this.circuit = new StoreCircuit(NAME, "postgres-" + config.table(), config.circuitCoolDown());
        this.sweeper = new ExpirySweeper(config.table(), config.sweepBatch(), this::sweepExpired);
        try {
            prepareServer();
        } catch (IllegalStateException wrongSchema) {
            close();
            throw wrongSchema;
        } catch (IdempotencyStoreException e) {
            if (config.requireServerAtStart()) {
                close();
                throw e;
            }
            LOG.warn("postgres store at {} is not reachable yet: {}", address, e.getMessage());
        }
    }

    /**
     * The renewals' connections beside a service's {@code dataSource}: a pool of the store's own, like the
     * service's, where that is a HikariCP pool and {@link PostgresStoreConfig#renewalPoolSize()} is above
     * 0, so that a holder's renewal never waits behind the service's own work for a connection (a busy
     * service that used them all would let leases run out under live holders); else the service's.
     */
    private static DataSource renewalsOf(PostgresStoreConfig config, DataSource dataSource) {
        DataSource own = config.renewalPoolSize() > 0 ? ConnectionPool.renewalsLike(dataSource, config.renewalPoolSize()) : null;
        if (own == null) {
            LOG.info("postgres store: lease renewals share the service's DataSource ({}); a service that uses all its "
                    + "connections delays them, and a lease can run out under a live holder", dataSource.getClass().getName());
            return dataSource;
        }
        return own;
    }

    /** The renewals' pool beside {@code pool}, which is closed if that cannot be opened. */
    private static DataSource renewalsBeside(PostgresStoreConfig config, DataSource pool) {
        try {
            return ConnectionPool.openForRenewals(config);
        } catch (RuntimeException e) {
            try {
                ((AutoCloseable) pool).close();
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * A store over the service's own {@code DataSource}, which the store never closes. The config's
     * URL, credentials and pool settings are not used; its table, prefix, sweep and start rules are, and
     * its {@link PostgresStoreConfig#renewalPoolSize()}: where the service's {@code DataSource} is a
     * HikariCP pool, lease renewals get a pool of the store's own with that many connections, a copy of
     * the service's settings (same server, credentials and timeouts), closed with the store, so that they
     * never wait behind the service's work for a connection; set it to 0 to renew on the service's pool.
     * Give the data source the timeouts of {@link PostgresStoreConfig} (connect, socket, and a
     * server-side {@code statement_timeout} below the socket timeout) so that a dead server is a
     * fast storage error.
     *
     * @throws IdempotencyStoreException as {@link #PostgresIdempotencyStore(PostgresStoreConfig)} does
     */
    public static PostgresIdempotencyStore open(DataSource dataSource, PostgresStoreConfig config) {
        return new PostgresIdempotencyStore(config, java.util.Objects.requireNonNull(dataSource, "dataSource"), false);
    }

    /** Opens a store with {@link PostgresStoreConfig#custom(String)}'s defaults. */
    public static PostgresIdempotencyStore open(String jdbcUrl) {
        return new PostgresIdempotencyStore(PostgresStoreConfig.custom(jdbcUrl).build());
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        return circuit.call(namespace, () -> {
            try (Connection connection = pool.getConnection();
                 PreparedStatement statement = connection.prepareStatement(sql.reserve)) {
                statement.setString(1, stored(namespace));
                statement.setString(2, token);
                statement.setString(3, fingerprint);
                statement.setLong(4, micros(lease));
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    afterWrite();
                    return row.getBoolean("acquired")
                            ? Reservation.acquired(row.getLong("fence"))
                            : Reservation.found(RecordRows.read(row, config.table(), namespace));
                }
            } catch (IdempotencyRecordUnreadableException e) {
                throw e;
            } catch (SQLException | RuntimeException e) {
                throw failure("reserve", namespace, e);
            }
        });
    }

    /**
     * On the renewals' own pool, and past the circuit: after a fault a renewal must not queue for a
     * connection behind new requests, nor wait out a cool-down that their failures opened, while the
     * lease of a live holder runs out. Renewals are one in flight per holder, so they cannot pile up
     * on a dead server the way new requests would.
     */
    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        try (Connection connection = renewals.getConnection()) {
            return updateOn(connection, sql.renew, statement -> {
                statement.setLong(1, micros(lease));
                statement.setString(2, stored(namespace));
                statement.setString(3, token);
            }) == 1;
        } catch (SQLException | RuntimeException e) {
            throw failure("renew", namespace, e);
        }
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        return circuit.call(namespace, () -> {
            try (Connection connection = pool.getConnection()) {
                // The holder's own unwatched reservation, the common case, by a plain update; every
                // other case (a watched row whose waiters are told, a late completion, a row that is
                // someone else's) by the complete function.
                int completed = updateOn(connection, sql.completeHeld, statement -> {
                    statement.setString(1, result.json());
                    statement.setString(2, result.notStoredReason());
                    statement.setLong(3, micros(ttl));
                    statement.setString(4, stored(namespace));
                    statement.setString(5, token);
                });
                return completed == 1 || endedOn(connection, sql.complete, statement -> {
                    statement.setString(1, stored(namespace));
                    statement.setString(2, token);
                    statement.setString(3, fingerprint);
                    statement.setString(4, result.json());
                    statement.setString(5, result.notStoredReason());
                    statement.setLong(6, micros(ttl));
                });
            } catch (SQLException | RuntimeException e) {
                throw failure("complete", namespace, e);
            }
        });
    }

    @Override
    public boolean release(String namespace, String token) {
        return ended("release", namespace, sql.release, statement -> {
            statement.setString(1, stored(namespace));
            statement.setString(2, token);
        });
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        return circuit.call(namespace, () -> lookupNow(namespace));
    }

    private Optional<IdempotencyRecord> lookupNow(String namespace) {
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql.lookup)) {
            statement.setString(1, stored(namespace));
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(RecordRows.read(row, config.table(), namespace)) : Optional.empty();
            }
        } catch (IdempotencyRecordUnreadableException e) {
            throw e;
        } catch (SQLException | RuntimeException e) {
            throw failure("lookup", namespace, e);
        }
    }

    /**
     * Deletes expired rows, at most {@link PostgresStoreConfig#sweepBatch()} of them, of every prefix
     * in the table. Expired rows are harmless (they count as absent and are taken over in place);
     * sweeping only bounds the table's size.
     *
     * @return how many rows were deleted
     * @throws IdempotencyStoreException if the server cannot be reached
     */
    public int sweepExpired() {
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql.sweepExpired)) {
            statement.setInt(1, config.sweepBatch());
            return statement.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            throw failure("sweepExpired", null, e);
        }
    }

    /** The pool requests use; {@link LocalEffects} opens its transactions there. */
    DataSource pool() {
        return pool;
    }

    RecordStatements statements() {
        return sql;
    }

    /** The configuration this store runs with. */
    public PostgresStoreConfig config() {
        return config;
    }

    @Override
    public StoreDescription describe() {
        String version = serverVersion;
        return new StoreDescription(NAME, version == null ? UNKNOWN_VERSION : version, address);
    }

    /** {@link PostgresStoreConfig#namespacePrefix()}: downstream keys differ where the rows' keys do. */
    @Override
    public String keyPrefix() {
        return config.namespacePrefix();
    }

    /** Closes the pools this store built, if it built them. Does not touch the server or the table. */
    @Override
    public void close() {
        sweeper.close();
        notifications.close();
        for (AutoCloseable own : ownPools) {
            try {
                own.close();
            } catch (Exception e) {
                LOG.debug("closing a connection pool failed", e);
            }
        }
    }

    private void prepareServer() {
        try (Connection connection = pool.getConnection()) {
            // A table of another schema version is refused whatever requireServerAtStart says.
            if (config.jdbcUrl() == null) {
                address = ServerAddress.of(connection.getMetaData().getURL());
                target = ServerAddress.target(connection.getMetaData().getURL(), connection.getMetaData().getUserName());
            }
            SchemaScript.apply(connection, config.table());
            try (PreparedStatement statement = connection.prepareStatement(sql.serverVersion);
                 ResultSet row = statement.executeQuery()) {
                row.next();
                serverVersion = row.getString(1);
            }
        } catch (IllegalStateException wrongSchema) {
            throw wrongSchema;
        } catch (SQLException | RuntimeException e) {
            throw failure("open", null, e);
        }
    }

    /** Runs a function that ends a reservation and says whether it did. */
    private boolean ended(String operation, String namespace, String statementSql, Binder binder) {
        return circuit.call(namespace, () -> {
            try (Connection connection = pool.getConnection()) {
                return endedOn(connection, statementSql, binder);
            } catch (SQLException | RuntimeException e) {
                throw failure(operation, namespace, e);
            }
        });
    }

    private static boolean endedOn(Connection connection, String statementSql, Binder binder) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statementSql)) {
            binder.bind(statement);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        }
    }

    /**
     * Wakes waiters by {@code LISTEN}/{@code pg_notify}: one listening connection per store. Once
     * listening, marks the row as watched (one {@code UPDATE}, a no-op write when a waiter marked it
     * already), since only a watched row's ending is notified. The caller re-reads the record after
     * this returns: an ending committed before the mark is seen by that read, one after it is notified.
     * A mark that fails leaves the waiter to its safety poll.
     */
    @Override
    public Subscription subscribe(String namespace, Listener listener) {
        Subscription subscription = notifications.subscribe(stored(namespace), listener);
        try {
            update("watch", namespace, sql.watch, statement -> statement.setString(1, stored(namespace)));
        } catch (IdempotencyStoreException e) {
            LOG.debug("could not mark {} as watched; its waiter polls", namespace, e);
        }
        return subscription;
    }

    private int update(String operation, String namespace, String statementSql, Binder binder) {
        return circuit.call(namespace, () -> {
            try (Connection connection = pool.getConnection()) {
                return updateOn(connection, statementSql, binder);
            } catch (SQLException | RuntimeException e) {
                throw failure(operation, namespace, e);
            }
        });
    }

    private static int updateOn(Connection connection, String statementSql, Binder binder) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(statementSql)) {
            binder.bind(statement);
            return statement.executeUpdate();
        }
    }

    /**
     * Wakes the sweeper now and then, so that a table fed only by this client stays near its live
     * rows; the sweep runs on the sweeper's thread, never on the request's (see {@link ExpirySweeper}).
     */
    private void afterWrite() {
        int every = config.sweepEveryWrites();
        if (every > 0 && writes.incrementAndGet() % every == 0) {
            sweeper.wake();
        }
    }

    /** Expired rows the background sweeper deleted so far (not counting {@link #sweepExpired()} called directly). */
    public long sweptInTheBackground() {
        return sweeper.deleted();
    }

    private String stored(String namespace) {
        return keyOf(namespace);
    }

    /**
     * The primary key of {@code namespace}'s row: {@code prefix{operation:key}}. The prefix holds no
     * brace and the operation no colon, so distinct (prefix, operation, key) never share a row,
     * whatever characters the key holds.
     */
    public String keyOf(String namespace) {
        return StoreKeys.of(config.namespacePrefix(), namespace);
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }

    IdempotencyStoreException failure(String operation, String namespace, Exception cause) {
        if (cause instanceof IdempotencyStoreException already) {
            return already;
        }
        return new IdempotencyStoreException(NAME, namespace, Failures.classify(cause), operation + " at " + target
                + " failed: " + cause.getMessage(), cause);
    }

    /** Sets a statement's parameters. */
    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }
}
