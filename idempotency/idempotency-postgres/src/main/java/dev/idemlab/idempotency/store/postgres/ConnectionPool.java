package dev.idemlab.idempotency.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Optional;

/**
 * The pool and driver settings behind a store. Each SPI call borrows a connection for one
 * autocommit statement, so the pool stays small and every wait is short. Stateless and thread-safe.
 */
final class ConnectionPool {

    private ConnectionPool() { }

    /** A HikariCP pool on the config's URL; HikariCP is an optional dependency needed only here. */
    static DataSource open(PostgresStoreConfig config) {
        return open(config, "", config.maxPoolSize());
    }

    /** The holders' pool, for lease renewals only (see {@link PostgresStoreConfig#renewalPoolSize()}). */
    static DataSource openForRenewals(PostgresStoreConfig config) {
        return open(config, "-renewals", config.renewalPoolSize());
    }

    private static DataSource open(PostgresStoreConfig config, String poolSuffix, int size) {
        if (config.jdbcUrl() == null) {
            throw new IllegalArgumentException("a store that builds its own pool needs a JDBC URL; "
                    + "use PostgresIdempotencyStore.open(DataSource, config) for a DataSource");
        }
        try {
            HikariConfig hikari = hikariConfig(config);
            hikari.setPoolName(hikari.getPoolName() + poolSuffix);
            hikari.setMaximumPoolSize(size);
            hikari.addDataSourceProperty("ApplicationName", "idempotency-store" + poolSuffix);
            return new HikariDataSource(hikari);
        } catch (RuntimeException | NoClassDefFoundError e) {
            throw new IdempotencyStoreException("postgres", null, "cannot open a connection pool to "
                    + ServerAddress.of(config.jdbcUrl()) + (e instanceof NoClassDefFoundError
                    ? ": HikariCP is not on the class path; add it or pass a DataSource" : ""), e);
        }
    }

    /**
     * The renewals' own pool beside a service's {@code dataSource}, on the same server with the same
     * settings, where that is a HikariCP pool: {@code null} when it is not (or HikariCP is not on the class
     * path), and the renewals share it. The copy keeps the service's URL, credentials, driver properties
     * and timeouts; it gets its own name, {@code size} connections, and no metrics or health registries.
     */
    static DataSource renewalsLike(DataSource dataSource, int size) {
        try {
            if (!(dataSource instanceof HikariDataSource service) || service.getDataSource() != null) {
                return null;
            }
            HikariConfig copy = new HikariConfig();
            service.copyStateTo(copy);
            copy.setPoolName((service.getPoolName() == null ? "service" : service.getPoolName()) + "-idempotency-renewals");
            copy.setMaximumPoolSize(size);
            copy.setMinimumIdle(1);
            copy.setMetricRegistry(null);
            copy.setMetricsTrackerFactory(null);
            copy.setHealthCheckRegistry(null);
            copy.setRegisterMbeans(false);
            copy.setInitializationFailTimeout(-1);
            return new HikariDataSource(copy);
        } catch (NoClassDefFoundError noHikari) {
            return null;
        }
    }

    /**
     * What to tell a service whose HikariCP {@code dataSource} makes a caller wait longer for a connection
     * than the store's own pools would ({@code poolTimeout}): under more load than the pool carries, every
     * store call waits that long before it fails and the coordinator's failure mode applies, longer than
     * clients wait (HikariCP's default is 30 s). Empty where the wait is no longer, or the pool is another kind.
     */
    static Optional<String> connectionWaitBeyond(DataSource dataSource, Duration poolTimeout) {
        try {
            if (!(dataSource instanceof HikariDataSource service)) {
                return Optional.empty();
            }
            long waits = service.getConnectionTimeout();
            boolean endless = waits == 0 || waits >= Integer.MAX_VALUE; // HikariCP stores "no limit" (0) as the largest int
            if (!endless && waits <= poolTimeout.toMillis()) {
                return Optional.empty();
            }
            return Optional.of("the service's pool " + (service.getPoolName() == null ? "" : service.getPoolName() + " ")
                    + "waits " + (endless ? "without end" : "up to " + waits + " ms") + " for a connection, the store's "
                    + "own pools " + poolTimeout.toMillis() + " ms: under more load than it carries, a reserve or a "
                    + "lookup waits that long before it fails and the failure mode applies, past what clients wait; give "
                    + "it a connectionTimeout of " + poolTimeout.toMillis() + " ms or less (with Spring Boot: "
                    + "spring.datasource.hikari.connection-timeout)");
        } catch (NoClassDefFoundError noHikari) {
            return Optional.empty();
        }
    }

    static HikariConfig hikariConfig(PostgresStoreConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("idempotency-postgres-" + config.table());
        hikari.setJdbcUrl(config.jdbcUrl());
        if (config.user() != null) {
            hikari.setUsername(config.user());
        }
        if (config.password() != null) {
            hikari.setPassword(config.password());
        }
        hikari.setAutoCommit(true);
        hikari.setMaximumPoolSize(config.maxPoolSize());
        hikari.setMinimumIdle(1);
        // A call waits this long for a connection, then fails: the coordinator's fail-open path starts here.
        hikari.setConnectionTimeout(config.poolTimeout().toMillis());
        hikari.setValidationTimeout(Math.min(config.poolTimeout().toMillis(), 1000));
        // Opening the pool does not connect; the store's own first statement decides whether that is fatal.
        hikari.setInitializationFailTimeout(-1);
        // The driver's defaults wait forever on a dead peer; these make a dead server a fast error.
        hikari.addDataSourceProperty("connectTimeout", Long.toString(config.connectTimeout().toSeconds()));
        hikari.addDataSourceProperty("loginTimeout", Long.toString(config.connectTimeout().toSeconds()));
        hikari.addDataSourceProperty("socketTimeout", Long.toString(config.socketTimeout().toSeconds()));
        // Both below the socket timeout: the server cancels a statement the client is about to give up
        // on, so a reservation the caller failed open on does not commit behind its back.
        hikari.addDataSourceProperty("options", "-c statement_timeout=" + config.statementTimeout().toMillis()
                + " -c lock_timeout=" + config.statementTimeout().toMillis());
        hikari.addDataSourceProperty("ApplicationName", "idempotency-store");
        return hikari;
    }
}
