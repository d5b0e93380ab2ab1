package dev.idemlab.lab.infra;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Prints what the lab's servers promise about durability, as they report it themselves: the
 * private Redis server's persistence and eviction settings ({@code CONFIG GET}) and the bundled
 * PostgreSQL's {@code fsync}, {@code synchronous_commit} and {@code full_page_writes}
 * ({@code SHOW}). Run by {@code scripts/failures.sh}:
 * {@code java -cp lab/target/lab.jar dev.idemlab.lab.infra.ServerPromises}. Starts its own private
 * servers and stops them before it exits.
 */
public final class ServerPromises {

    private ServerPromises() { }

    public static void main(String[] args) throws Exception {
        try (RedisBackend redis = RedisBackend.open(ProvisioningOptions.defaults())) {
            System.out.println("redis: " + redis.server().describe());
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                for (String setting : List.of("save", "appendonly", "appendfsync", "maxmemory", "maxmemory-policy")) {
                    Map<String, String> value = connection.sync().configGet(setting);
                    System.out.println("  CONFIG GET " + setting + " = '" + value.getOrDefault(setting, "") + "'");
                }
            } finally {
                client.shutdown();
            }
        }
        try (PostgresBackend postgres = PostgresBackend.open(ProvisioningOptions.defaults())) {
            System.out.println("postgres: " + postgres.server().describe());
            Properties credentials = new Properties();
            if (postgres.user() != null) {
                credentials.setProperty("user", postgres.user());
            }
            if (postgres.password() != null) {
                credentials.setProperty("password", postgres.password());
            }
            try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), credentials);
                 Statement statement = connection.createStatement()) {
                for (String setting : List.of("fsync", "synchronous_commit", "full_page_writes", "wal_level")) {
                    try (ResultSet row = statement.executeQuery("SHOW " + setting)) {
                        row.next();
                        System.out.println("  SHOW " + setting + " = " + row.getString(1));
                    }
                }
            }
        }
    }
}
