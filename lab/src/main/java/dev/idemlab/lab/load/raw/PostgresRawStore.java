package dev.idemlab.lab.load.raw;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The PostgreSQL baselines, through JDBC and HikariCP like the PostgreSQL store: a pool of the store's
 * default size, autocommit, one borrowed connection per statement, and a table of the store's shape.
 * Thread-safe.
 */
public final class PostgresRawStore implements RawStore {

    private static final String TABLE = "lab_raw_record";
    private static final String CREATE = "CREATE TABLE IF NOT EXISTS " + TABLE + " (namespace text PRIMARY KEY, "
            + "state text NOT NULL, token text, fingerprint text NOT NULL, result_json text, "
            + "expires_at timestamptz NOT NULL)";
    private static final String INSERT = "INSERT INTO " + TABLE
            + " (namespace, state, token, fingerprint, expires_at) VALUES (?, 'pending', ?, ?, "
            + "now() + interval '30 seconds') ON CONFLICT DO NOTHING";
    private static final String UPDATE = "UPDATE " + TABLE + " SET state = 'completed', token = NULL, "
            + "result_json = ?, expires_at = now() + interval '24 hours' WHERE namespace = ? AND token = ?";
    private static final String SELECT = "SELECT state, fingerprint, result_json FROM " + TABLE
            + " WHERE namespace = ?";
    private static final String SEED = "INSERT INTO " + TABLE + " (namespace, state, fingerprint, result_json, "
            + "expires_at) VALUES (?, 'completed', ?, ?, now() + interval '24 hours') ON CONFLICT DO NOTHING";
    private static final String TOKEN = "0123456789abcdef-1";
    private static final String FINGERPRINT = "0".repeat(64);
    private static final String RESULT = "\"ch_1\"";
    /** The PostgreSQL store's default pool size. */
    private static final int POOL_SIZE = 16;

    private final HikariDataSource pool;
    private final String prefix = "raw:" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ':';

    /** Connects to the server and creates the baseline table if it is not there. */
    public PostgresRawStore(String jdbcUrl, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("raw-postgres");
        config.setJdbcUrl(jdbcUrl);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setAutoCommit(true);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(1);
        this.pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(CREATE);
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("cannot create " + TABLE + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Object reserve(String key) {
        return update(INSERT, prefix + key, TOKEN, FINGERPRINT);
    }

    @Override
    public Object plainWrite(String key) {
        markPending(key);
        return update(UPDATE, RESULT, prefix + key, TOKEN);
    }

    @Override
    public Object plainRead(String key) {
        return readResult(key);
    }

    @Override
    public boolean markPending(String key) {
        return update(INSERT, prefix + key, TOKEN, FINGERPRINT) == 1;
    }

    @Override
    public void storeResult(String key, String resultJson) {
        update(UPDATE, resultJson, prefix + key, TOKEN);
    }

    /** A pending row's result is null, so one column tells both states apart. */
    @Override
    public String readResult(String key) {
        try (Connection c = pool.getConnection(); PreparedStatement s = c.prepareStatement(SELECT)) {
            s.setString(1, prefix + key);
            try (ResultSet row = s.executeQuery()) {
                return row.next() ? row.getString(3) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("SELECT failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void seed(String key) {
        update(SEED, prefix + key, FINGERPRINT, RESULT);
    }

    @Override
    public void forgetKeys() {
        // The rows live in the trial's server; the baseline never reads them back.
    }

    @Override
    public void close() {
        pool.close();
    }

    private int update(String sql, String first, String second, String third) {
        try (Connection c = pool.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, first);
            s.setString(2, second);
            s.setString(3, third);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed: " + e.getMessage(), e);
        }
    }
}
