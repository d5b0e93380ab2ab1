package dev.idemlab.bench.probe;

import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The probe behind {@code results/bench/MISSED.md}'s PostgreSQL figures: the store's SQL for a first
 * call and a replay, in the shapes compared there, run interleaved round by round on one bundled
 * PostgreSQL (the store's own schema, created by opening the store), each thread on its own
 * connection, beside the raw statements the benchmarks' baselines send. Interleaving puts every shape
 * into the same minutes of a shared machine, which JMH's one-benchmark-after-another cannot.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.idemlab.bench.probe.PostgresStatementProbe [threads] [rounds] [calls]
 * }</pre>
 * Defaults: 1 thread, 31 rounds, 200 calls per thread and round. Prints the median and the best round
 * of each shape, in µs per call.
 */
public final class PostgresStatementProbe {

    private static final String TOKEN = "AAAAAAAAAAA.1";
    private static final String FINGERPRINT = "0".repeat(64);
    private static final String RESULT = "\"ch_1\"";
    private static final long LEASE_US = 30_000_000L;
    private static final long TTL_US = 86_400_000_000L;

    /** One call of a shape on one connection and key. */
    @FunctionalInterface
    private interface Shape {
        void call(Connection connection, String key) throws SQLException;
    }

    private PostgresStatementProbe() { }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 31;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        try (PostgresBackend backend = PostgresBackend.open(ProvisioningOptions.defaults());
             PostgresIdempotencyStore store = (PostgresIdempotencyStore) backend.openStore()) {
            String table = store.config().table();
            try (Connection connection = connect(backend); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE probe_raw (namespace text PRIMARY KEY, state text NOT NULL, "
                        + "token text, fingerprint text NOT NULL, result_json text, expires_at timestamptz NOT NULL)");
            }
            Statements sql = new Statements(table);
            Map<String, Shape> firstCalls = new LinkedHashMap<>();
            firstCalls.put("raw insert, then update", (c, k) -> {
                update(c, sql.rawInsert, k, TOKEN, FINGERPRINT);
                update(c, sql.rawUpdate, RESULT, k, TOKEN);
            });
            firstCalls.put("reserve function, complete function", (c, k) -> {
                query(c, sql.reserve, k, TOKEN, FINGERPRINT, LEASE_US);
                query(c, sql.complete, k, TOKEN, FINGERPRINT, RESULT, null, TTL_US);
            });
            firstCalls.put("reserve function, plain update (the store)", (c, k) -> {
                query(c, sql.reserve, k, TOKEN, FINGERPRINT, LEASE_US);
                update(c, sql.completeHeld, RESULT, null, TTL_US, k, TOKEN);
            });
            firstCalls.put("insert and read in one trip, plain update", (c, k) -> {
                pipelined(c, sql.reserveInOneTrip, k, TOKEN, FINGERPRINT, LEASE_US, k, k);
                update(c, sql.completeHeld, RESULT, null, TTL_US, k, TOKEN);
            });
            Map<String, Shape> replays = new LinkedHashMap<>();
            replays.put("raw select", (c, k) -> query(c, sql.rawSelect, k));
            replays.put("reserve function (the store)", (c, k) -> query(c, sql.reserve, k, "other", FINGERPRINT, LEASE_US));
            replays.put("insert and read in one trip", (c, k) -> pipelined(c, sql.reserveInOneTrip, k, "other",
                    FINGERPRINT, LEASE_US, k, k));

            System.out.printf(Locale.ROOT, "PostgreSQL %s, table %s, %d thread(s), %d rounds of %d calls per thread%n",
                    store.describe().serverVersion(), table, threads, rounds, calls);
            List<Connection> connections = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                for (int i = 0; i < threads; i++) {
                    connections.add(connect(backend));
                }
                // Completed rows to replay: the raw table's for the raw select, the store's for the others.
                run(pool, connections, 1, calls, Map.of("raw", firstCalls.get("raw insert, then update")), shape -> "replay:raw:");
                run(pool, connections, 1, calls, Map.of("store", firstCalls.get("reserve function, plain update (the store)")),
                        shape -> "replay:store:");
                report("first call", run(pool, connections, rounds, calls, firstCalls, shape -> null));
                report("replay", run(pool, connections, rounds, calls, replays,
                        shape -> shape.startsWith("raw") ? "replay:raw:" : "replay:store:"));
            } finally {
                pool.shutdown();
                for (Connection connection : connections) {
                    connection.close();
                }
            }
        }
    }

    /**
     * The statements compared, for the store's table: its functions of {@code schema.sql}, and the
     * plain completion the store sends first (as in {@code RecordStatements}, package-private there).
     */
    private static final class Statements {
        final String rawInsert = "INSERT INTO probe_raw (namespace, state, token, fingerprint, expires_at) "
                + "VALUES (?, 'pending', ?, ?, now() + interval '30 seconds') ON CONFLICT DO NOTHING";
        final String rawUpdate = "UPDATE probe_raw SET state = 'completed', token = NULL, result_json = ?, "
                + "expires_at = now() + interval '24 hours' WHERE namespace = ? AND token = ?";
        final String rawSelect = "SELECT state, fingerprint, result_json FROM probe_raw WHERE namespace = ?";
        final String reserve;
        final String complete;
        final String completeHeld;
        final String reserveInOneTrip;

        Statements(String table) {
            String columns = "state, token, fingerprint, result_json, not_stored_reason, "
                    + "(extract(epoch FROM expires_at - now()) * 1000000)::bigint";
            reserve = "SELECT * FROM " + table + "_reserve(?, ?, ?, ?)";
            complete = "SELECT " + table + "_complete(?, ?, ?, ?, ?, ?)";
            completeHeld = "UPDATE " + table + " SET state = 'completed', token = NULL, result_json = ?, "
                    + "not_stored_reason = ?, expires_at = now() + ? * interval '1 microsecond' "
                    + "WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now() AND NOT watched";
            reserveInOneTrip = "INSERT INTO " + table + " (namespace, state, token, fingerprint, expires_at, fence) "
                    + "SELECT ?, 'pending', ?, ?, now() + ? * interval '1 microsecond', nextval('" + table
                    + "_fence_seq') WHERE NOT EXISTS (SELECT FROM " + table + " WHERE namespace = ?) "
                    + "ON CONFLICT (namespace) DO NOTHING RETURNING fence; SELECT " + columns + " FROM " + table
                    + " WHERE namespace = ? AND expires_at > now()";
        }
    }

    private static final AtomicLong ROUND = new AtomicLong();

    /**
     * Runs every shape for {@code rounds} rounds, the shapes in turn within a round, one thread per
     * connection, and returns µs per call by shape. A shape's keys are those seeded under the prefix
     * {@code keys} gives it, or fresh ones when it gives {@code null}.
     */
    private static Map<String, List<Double>> run(ExecutorService pool, List<Connection> connections, int rounds,
                                                 int calls, Map<String, Shape> shapes,
                                                 Function<String, String> keys) throws Exception {
        Map<String, List<Double>> times = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, Shape> shape : shapes.entrySet()) {
                String seeded = keys.apply(shape.getKey());
                String prefix = seeded != null ? seeded : "first:" + ROUND.incrementAndGet() + ":";
                long start = System.nanoTime();
                List<Future<?>> running = new ArrayList<>();
                for (int t = 0; t < connections.size(); t++) {
                    Connection connection = connections.get(t);
                    String threadKeys = prefix + t + ":";
                    running.add(pool.submit(() -> {
                        for (int i = 0; i < calls; i++) {
                            shape.getValue().call(connection, threadKeys + i);
                        }
                        return null;
                    }));
                }
                for (Future<?> done : running) {
                    done.get();
                }
                times.computeIfAbsent(shape.getKey(), k -> new ArrayList<>())
                        .add((System.nanoTime() - start) / 1000.0 / ((double) calls * connections.size()));
            }
        }
        return times;
    }

    private static void report(String what, Map<String, List<Double>> times) {
        System.out.println(what + ", µs per call: median (best round)");
        times.forEach((shape, list) -> {
            List<Double> sorted = new ArrayList<>(list);
            Collections.sort(sorted);
            System.out.printf(Locale.ROOT, "  %-45s %8.1f (%.1f)%n", shape, sorted.get(sorted.size() / 2), sorted.get(0));
        });
    }

    private static Connection connect(PostgresBackend backend) throws SQLException {
        return DriverManager.getConnection(backend.jdbcUrl(), backend.user(), backend.password());
    }

    private static void update(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, parameters)) {
            statement.executeUpdate();
        }
    }

    private static void query(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, parameters);
             ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                rows.getString(1);
            }
        }
    }

    /** Two statements in one round trip: reads every result of both. */
    private static void pipelined(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, parameters)) {
            boolean rows = statement.execute();
            while (rows || statement.getUpdateCount() != -1) {
                if (rows) {
                    try (ResultSet result = statement.getResultSet()) {
                        while (result.next()) {
                            result.getString(1);
                        }
                    }
                }
                rows = statement.getMoreResults();
            }
        }
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object... parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] == null) {
                statement.setNull(i + 1, Types.VARCHAR);
            } else {
                statement.setObject(i + 1, parameters[i]);
            }
        }
        return statement;
    }
}
