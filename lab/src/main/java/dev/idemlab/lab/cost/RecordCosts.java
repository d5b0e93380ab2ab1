package dev.idemlab.lab.cost;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntConsumer;

/**
 * Measures what completed records cost a real store, by the server's own accounting, beside the same
 * JSON written raw with the same ttl on the same server: Redis by {@code MEMORY USAGE} of every key
 * under the store's prefix (record and any companion key) against a plain {@code SET ... PX}, and
 * PostgreSQL by the table's size with its indexes and TOAST against a table of the bare key, JSON
 * and expiry. Each record is written as the coordinator writes it: a reserve, then a complete with
 * the result. One reservation in ten is released as well, as after a failed action, and whatever it
 * left behind is counted. Stateless.
 */
public final class RecordCosts {

    /** The ttl of every record and raw write: the coordinator's default. */
    static final Duration TTL = Duration.ofHours(24);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String OPERATION = "payment.charge";

    private RecordCosts() { }

    /** A JSON object of exactly {@code bytes} bytes (ASCII), shaped like a charge. */
    static String resultOf(int bytes) {
        String head = "{\"id\":\"ch_1\",\"object\":\"charge\",\"amount\":1000,\"currency\":\"eur\",\"note\":\"";
        String tail = "\"}";
        int fill = bytes - head.length() - tail.length();
        if (fill < 0) {
            throw new IllegalArgumentException("a result of " + bytes + " bytes is too small for a charge: at least "
                    + (head.length() + tail.length()));
        }
        return head + "x".repeat(fill) + tail;
    }

    /** {@code records} completed records on the private Redis behind {@code backend}. */
    public static RecordCost redis(RedisBackend backend, int records, int resultBytes, IntConsumer progress) {
        String json = resultOf(resultBytes);
        RedisClient client = RedisClient.create(backend.uri());
        try (RedisIdempotencyStore store = (RedisIdempotencyStore) backend.openStore();
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> raw = connection.sync();
            String prefix = store.config().keyPrefix();
            String rawPrefix = sameLengthOtherPrefix(prefix);
            for (int i = 0; i < records; i++) {
                String namespace = OPERATION + ":cost-" + i;
                complete(store, namespace, i, json);
                raw.set(rawPrefix + store.keyOf(namespace).substring(prefix.length()), json,
                        SetArgs.Builder.px(TTL.toMillis()));
                report(progress, i, records);
            }
            int released = releaseSome(store, records);
            long[] store1 = keysAndBytes(raw, prefix + "{" + OPERATION + ":cost-*");
            long[] left = keysAndBytes(raw, prefix + "{" + OPERATION + ":released-*");
            long[] baseline = keysAndBytes(raw, rawPrefix + "*");
            return new RecordCost(backend.server(), records, resultBytes, "keys", (double) store1[0] / records,
                    (double) store1[1] / records, "SET key json PX ttl", (double) baseline[1] / baseline[0],
                    released, left[0], "MEMORY USAGE ... SAMPLES 0 of every key under the prefix",
                    RecordCost.REDIS_TARGET_RATIO, "");
        } finally {
            client.shutdown();
        }
    }

    /**
     * What {@code calls} first calls and as many replays cost the private Redis behind {@code backend},
     * by {@code INFO commandstats} (the server's own microseconds per command), beside the floor of each
     * on the same server: {@code SET NX PX} of a marker then {@code SET XX PX} of the result, and
     * {@code GET}. A replay is measured as the coordinator runs it (the reserve script finding the
     * completed record), and the lookup script a waiter reads with is measured beside it. The counters are reset ({@code CONFIG RESETSTAT}) before each of the four and read
     * after; only the commands each sends are summed (the scripts' {@code EVALSHA}, and {@code EVAL}
     * should the script cache have been lost; {@code SET}; {@code GET}), so that the commands a script
     * runs inside it, which Redis counts too, are not counted twice.
     */
    public static ServerTime redisServerTime(RedisBackend backend, int calls, int resultBytes) {
        String json = resultOf(resultBytes);
        RedisClient client = RedisClient.create(backend.uri());
        try (RedisIdempotencyStore store = (RedisIdempotencyStore) backend.openStore();
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> raw = connection.sync();
            String prefix = store.config().keyPrefix();
            String rawPrefix = sameLengthOtherPrefix(prefix);
            // As long as the store's reservation: header, 32 bytes of fingerprint, a 16-digit fence, token.
            String marker = "3|p|" + Fingerprint.ofFields(Map.of("amount", 1000)).hex().substring(0, 32)
                    + "1700000000000000|" + UUID.randomUUID();
            complete(store, OPERATION + ":warm-up", -1, json); // the scripts are loaded, the connections open

            raw.configResetstat();
            for (int i = 0; i < calls; i++) {
                complete(store, OPERATION + ":cpu-" + i, i, json);
            }
            double firstCall = usec(raw, "evalsha", "eval") / calls;
            Map<String, Double> firstCallInside = inside(raw, calls, "get", "set", "time", "publish", "pttl");

            raw.configResetstat();
            for (int i = 0; i < calls; i++) {
                String key = rawPrefix + store.keyOf(OPERATION + ":cpu-" + i).substring(prefix.length());
                raw.set(key, marker, SetArgs.Builder.nx().px(LEASE.toMillis()));
                raw.set(key, json, SetArgs.Builder.xx().px(TTL.toMillis()));
            }
            double floor = usec(raw, "set") / calls;

            // A replay as the coordinator runs it: a reserve with a new token that finds the completed record.
            raw.configResetstat();
            for (int i = 0; i < calls; i++) {
                String namespace = OPERATION + ":cpu-" + i;
                if (!(store.reserve(namespace, UUID.randomUUID().toString(), fingerprintOf(i), LEASE)
                        instanceof Reservation.Found)) {
                    throw new IllegalStateException("a record just completed was not found by a replay's reserve");
                }
            }
            double replay = usec(raw, "evalsha", "eval") / calls;
            Map<String, Double> replayInside = inside(raw, calls, "get", "set", "time", "publish", "pttl");

            // What a waiter reads once told (or on its safety poll): the lookup script.
            raw.configResetstat();
            for (int i = 0; i < calls; i++) {
                if (store.lookup(OPERATION + ":cpu-" + i).isEmpty()) {
                    throw new IllegalStateException("a record just completed was not found");
                }
            }
            double lookup = usec(raw, "evalsha", "eval") / calls;

            raw.configResetstat();
            for (int i = 0; i < calls; i++) {
                raw.get(rawPrefix + store.keyOf(OPERATION + ":cpu-" + i).substring(prefix.length()));
            }
            double get = usec(raw, "get") / calls;
            return new ServerTime(backend.server(), calls, firstCall, floor, replay, lookup, get, firstCallInside,
                    replayInside);
        } finally {
            client.shutdown();
        }
    }

    /**
     * The microseconds per call the server spent in each of {@code commands} since the counters were
     * reset, those it ran at all: in a phase that sent only scripts, the commands the scripts ran.
     */
    private static Map<String, Double> inside(RedisCommands<String, String> redis, int calls, String... commands) {
        Map<String, Double> inside = new LinkedHashMap<>();
        for (String command : commands) {
            double usec = usec(redis, command);
            if (usec > 0) {
                inside.put(command.toUpperCase(Locale.ROOT), usec / calls);
            }
        }
        return inside;
    }

    /** The microseconds the server spent in {@code commands} since the counters were reset. */
    private static double usec(RedisCommands<String, String> redis, String... commands) {
        long usec = 0;
        for (String line : redis.info("commandstats").split("\r?\n")) {
            for (String command : commands) {
                String head = "cmdstat_" + command + ":";
                if (line.startsWith(head)) {
                    for (String field : line.substring(head.length()).split(",")) {
                        if (field.startsWith("usec=")) {
                            usec += Long.parseLong(field.substring("usec=".length()));
                        }
                    }
                }
            }
        }
        return usec;
    }

    /** {@code records} completed records in the private PostgreSQL behind {@code backend}. */
    public static RecordCost postgres(PostgresBackend backend, int records, int resultBytes, IntConsumer progress) {
        String json = resultOf(resultBytes);
        try (PostgresIdempotencyStore store = (PostgresIdempotencyStore) backend.openStore();
             Connection sql = DriverManager.getConnection(backend.jdbcUrl(), backend.user(), backend.password())) {
            String table = store.config().table();
            String rawTable = "record_cost_raw_" + UUID.randomUUID().toString().replace("-", "");
            try (Statement statement = sql.createStatement()) {
                statement.execute("CREATE TABLE " + rawTable + " (namespace text PRIMARY KEY, result_json text NOT NULL, "
                        + "expires_at timestamptz NOT NULL)");
            }
            long rowsBefore = count(sql, table, "true");
            long bytesBefore = totalSize(sql, table);
            try (PreparedStatement insert = sql.prepareStatement("INSERT INTO " + rawTable
                    + " VALUES (?, ?, now() + interval '24 hours')")) {
                for (int i = 0; i < records; i++) {
                    String namespace = OPERATION + ":cost-" + i;
                    complete(store, namespace, i, json);
                    insert.setString(1, store.keyOf(namespace));
                    insert.setString(2, json);
                    insert.executeUpdate();
                    report(progress, i, records);
                }
            }
            int released = releaseSome(store, records);
            long rows = count(sql, table, "true") - rowsBefore;
            long left = count(sql, table, "namespace LIKE '%released-%'");
            long bytes = totalSize(sql, table) - bytesBefore;
            long rawBytes = totalSize(sql, rawTable);
            // Rewritten with live rows only: what a record costs once its dead tuple is gone.
            try (Statement statement = sql.createStatement()) {
                statement.execute("VACUUM FULL " + table);
                statement.execute("VACUUM FULL " + rawTable);
            }
            long compacted = totalSize(sql, table);
            long rawCompacted = totalSize(sql, rawTable);
            try (Statement statement = sql.createStatement()) {
                statement.execute("DROP TABLE " + rawTable);
            }
            String note = String.format(Locale.ROOT, "after VACUUM FULL of both tables (live rows only): "
                    + "%.0f B per record against %.0f B raw, %.2fx", (double) compacted / records,
                    (double) rawCompacted / records, (double) compacted / rawCompacted);
            return new RecordCost(backend.server(), records, resultBytes, "rows", (double) (rows - left) / records,
                    (double) bytes / records, "INSERT of (key, json, expiry) into a table of its own",
                    (double) rawBytes / records, released, left,
                    "pg_total_relation_size (heap, indexes, TOAST; as written, with the dead tuple each completion "
                            + "leaves)", null, note);
        } catch (SQLException e) {
            throw new IllegalStateException("measuring the PostgreSQL store failed: " + e.getMessage(), e);
        }
    }

    private static String fingerprintOf(int i) {
        return Fingerprint.ofFields(Map.of("order_id", "order-" + i, "amount", 1000)).hex();
    }

    private static void complete(IdempotencyStore store, String namespace, int i, String json) {
        String fingerprint = fingerprintOf(i);
        String token = UUID.randomUUID().toString();
        store.reserve(namespace, token, fingerprint, LEASE);
        if (!store.complete(namespace, token, fingerprint, StoredResult.of(json), TTL)) {
            throw new IllegalStateException("the store did not complete " + namespace);
        }
    }

    /** Reserves and releases one namespace per ten records, as after a failed action. */
    private static int releaseSome(IdempotencyStore store, int records) {
        int released = Math.max(1, records / 10);
        for (int i = 0; i < released; i++) {
            String namespace = OPERATION + ":released-" + i;
            String token = UUID.randomUUID().toString();
            String fingerprint = Fingerprint.ofFields(Map.of("released", i)).hex();
            store.reserve(namespace, token, fingerprint, LEASE);
            store.release(namespace, token);
        }
        return released;
    }

    private static void report(IntConsumer progress, int i, int records) {
        if ((i + 1) % Math.max(1, records / 10) == 0) {
            progress.accept(i + 1);
        }
    }

    /** A prefix as long as {@code prefix} that no key of the store starts with. */
    private static String sameLengthOtherPrefix(String prefix) {
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("the store's keys need a prefix to be told from the raw ones");
        }
        return (prefix.charAt(0) == 'R' ? "S" : "R") + prefix.substring(1);
    }

    /** How many keys match {@code pattern}, and their {@code MEMORY USAGE} summed. */
    private static long[] keysAndBytes(RedisCommands<String, String> redis, String pattern) {
        long keys = 0;
        long bytes = 0;
        ScanIterator<String> scan = ScanIterator.scan(redis, ScanArgs.Builder.matches(pattern).limit(1000));
        while (scan.hasNext()) {
            String key = scan.next();
            Long usage = redis.dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0));
            keys++;
            bytes += usage == null ? 0 : usage;
        }
        return new long[] {keys, bytes};
    }

    private static long count(Connection sql, String table, String where) throws SQLException {
        try (Statement statement = sql.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM " + table + " WHERE " + where)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static long totalSize(Connection sql, String table) throws SQLException {
        try (PreparedStatement statement = sql.prepareStatement("SELECT pg_total_relation_size(?::regclass)")) {
            statement.setString(1, table);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
