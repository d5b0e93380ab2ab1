package dev.idemlab.lab.infra;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a server promises about an acknowledged write, read back from the server itself
 * ({@code SHOW fsync}, {@code SHOW synchronous_commit}; {@code CONFIG GET appendonly},
 * {@code CONFIG GET appendfsync}), and the switch to the durable configuration for a private server
 * the lab started: PostgreSQL with {@code fsync=on} and {@code synchronous_commit=on}, Redis with
 * {@code appendonly yes} and {@code appendfsync everysec}. A server given by URL is never reconfigured.
 * Stateless and thread-safe.
 */
public final class ServerDurability {

    /** What the durable configuration of a PostgreSQL server sets. */
    public static final Map<String, String> POSTGRES_DURABLE = Map.of("fsync", "on", "synchronous_commit", "on",
            "full_page_writes", "on");
    /** What the durable configuration of a Redis server sets. */
    public static final Map<String, String> REDIS_DURABLE = Map.of("appendonly", "yes", "appendfsync", "everysec");
    private static final Duration RELOAD_PATIENCE = Duration.ofSeconds(5);

    private ServerDurability() { }

    /**
     * Reads {@code fsync} and {@code synchronous_commit}, after switching them on when {@code makeDurable}.
     *
     * @return e.g. {@code fsync=on, synchronous_commit=on}
     * @throws ProvisioningException if the server cannot be reached or refuses the change
     */
    public static String postgres(String jdbcUrl, String user, String password, boolean makeDurable) {
        Properties credentials = new Properties();
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
        try (Connection connection = DriverManager.getConnection(jdbcUrl, credentials);
             Statement statement = connection.createStatement()) {
            if (makeDurable) {
                for (Map.Entry<String, String> setting : POSTGRES_DURABLE.entrySet()) {
                    statement.execute("ALTER SYSTEM SET " + setting.getKey() + " = " + setting.getValue());
                }
                statement.execute("SELECT pg_reload_conf()");
            }
            // The reload is signalled, not awaited: read until the new values show, for a few seconds.
            long deadline = System.nanoTime() + RELOAD_PATIENCE.toNanos();
            while (true) {
                String fsync = show(statement, "fsync");
                String syncCommit = show(statement, "synchronous_commit");
                boolean applied = fsync.equals("on") && syncCommit.equals("on");
                String settings = "fsync=" + fsync + ", synchronous_commit=" + syncCommit;
                if (!makeDurable || applied) {
                    return settings;
                }
                if (System.nanoTime() - deadline > 0) {
                    // A setting given on the server's command line outranks ALTER SYSTEM: never
                    // publish figures of a server that was asked to be durable and is not.
                    throw new ProvisioningException("asked for a durable postgres, but it still runs with " + settings
                            + " (a setting on its command line outranks ALTER SYSTEM)", null);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        } catch (SQLException e) {
            throw new ProvisioningException("cannot read the durability settings of postgres: " + e.getMessage(), e);
        }
    }

    /**
     * Reads {@code appendonly} and {@code appendfsync}, after setting them when {@code makeDurable}.
     *
     * @return e.g. {@code appendonly=yes, appendfsync=everysec}
     * @throws ProvisioningException if the server cannot be reached or refuses the change
     */
    public static String redis(String uri, boolean makeDurable) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            if (makeDurable) {
                for (Map.Entry<String, String> setting : REDIS_DURABLE.entrySet()) {
                    redis.configSet(setting.getKey(), setting.getValue());
                }
            }
            return "appendonly=" + redis.configGet("appendonly").get("appendonly")
                    + ", appendfsync=" + redis.configGet("appendfsync").get("appendfsync");
        } catch (RuntimeException e) {
            if (makeDurable) {
                throw new ProvisioningException("cannot make redis durable: " + e.getMessage(), e);
            }
            // A managed server may refuse CONFIG: the run goes on, and its pages say the settings are unknown.
            return "appendonly and appendfsync unknown (CONFIG GET refused: " + e.getMessage() + ")";
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static String show(Statement statement, String setting) throws SQLException {
        try (ResultSet row = statement.executeQuery("SHOW " + setting)) {
            row.next();
            return row.getString(1);
        }
    }
}
