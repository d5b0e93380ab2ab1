package dev.idemlab.lab.cost;

import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ServerInfo;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A steady stream of first calls (a reserve, then a complete with a short ttl) into the lab's own
 * PostgreSQL, for as long as asked, sampling what the table holds as it goes: rows of the stream's
 * prefix, how many of them have expired and wait for the sweep, and the table's size with its
 * indexes. With a sweep that keeps up the rows level off near what the ttl keeps alive (rate times
 * ttl) plus what expires between two wakes of the sweeper; with one that falls behind they grow with
 * the stream. Used by one thread.
 */
public final class SweepStream {

    /** One sample of the table. */
    public record Sample(double atSeconds, long written, long rows, long expired, long tableBytes, long swept) { }

    /** The stream's settings and samples, and what the store promises. */
    public record Result(ServerInfo server, Duration duration, Duration ttl, int rate, int sweepEveryWrites,
                         int sweepBatch, List<Sample> samples) {

        /** What the ttl alone keeps alive at the stream's rate. */
        public long liveAtRate() {
            return (long) rate * ttl.toSeconds();
        }

        /**
         * The most rows a sweep that keeps up can leave: the live ones, those written while the sweeper
         * waits for its next wake, and a batch in flight.
         */
        public long bound() {
            return liveAtRate() + sweepEveryWrites + sweepBatch;
        }

        /**
         * Whether the rows stayed within {@link #bound()} once the first ttl and a wake had passed (before
         * then nothing has expired yet).
         */
        public boolean flat() {
            double settled = ttl.toSeconds() + (double) sweepEveryWrites / rate;
            return samples.stream().filter(sample -> sample.atSeconds() >= settled)
                    .allMatch(sample -> sample.rows() <= bound());
        }
    }

    private static final String OPERATION = "payment.charge";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String JSON = RecordCosts.resultOf(211);

    private SweepStream() { }

    /**
     * Streams {@code rate} first calls a second for {@code duration}, each completed with {@code ttl},
     * sampling every {@code every}.
     *
     * @param tune changes to the store's configuration (a test's smaller sweep settings), or identity
     * @param progress told each sample as it is taken
     */
    public static Result run(PostgresBackend backend, Duration duration, Duration ttl, int rate, Duration every,
                             UnaryOperator<PostgresStoreConfig.Builder> tune, Consumer<Sample> progress) {
        String prefix = "sweep-stream-" + UUID.randomUUID() + ":";
        PostgresStoreConfig config = tune.apply(PostgresStoreConfig.custom(backend.jdbcUrl())
                .credentials(backend.user(), backend.password()).namespacePrefix(prefix)).build();
        List<Sample> samples = new ArrayList<>();
        try (PostgresIdempotencyStore store = new PostgresIdempotencyStore(config);
             Connection sql = DriverManager.getConnection(backend.jdbcUrl(), backend.user(), backend.password())) {
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            long gap = 1_000_000_000L / rate;
            long nextSample = start + every.toNanos();
            long written = 0;
            for (long due = start; due - end < 0; due += gap) {
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                String namespace = OPERATION + ":stream-" + written;
                String token = UUID.randomUUID().toString();
                store.reserve(namespace, token, "fp", LEASE);
                store.complete(namespace, token, "fp", StoredResult.of(JSON), ttl);
                written++;
                if (System.nanoTime() - nextSample >= 0) {
                    Sample sample = sample(sql, store, prefix, (System.nanoTime() - start) / 1e9, written);
                    samples.add(sample);
                    progress.accept(sample);
                    nextSample += every.toNanos();
                }
            }
            return new Result(backend.server(), duration, ttl, rate, config.sweepEveryWrites(), config.sweepBatch(),
                    samples);
        } catch (SQLException e) {
            throw new IllegalStateException("sampling the PostgreSQL table failed: " + e.getMessage(), e);
        }
    }

    private static Sample sample(Connection sql, PostgresIdempotencyStore store, String prefix, double at,
                                 long written) throws SQLException {
        String table = store.config().table();
        long rows;
        long expired;
        try (PreparedStatement statement = sql.prepareStatement("SELECT count(*), count(*) FILTER (WHERE expires_at "
                + "<= now()) FROM " + table + " WHERE left(namespace, length(?)) = ?")) {
            statement.setString(1, prefix);
            statement.setString(2, prefix);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                rows = row.getLong(1);
                expired = row.getLong(2);
            }
        }
        long bytes;
        try (PreparedStatement statement = sql.prepareStatement("SELECT pg_total_relation_size(?::regclass)")) {
            statement.setString(1, table);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                bytes = row.getLong(1);
            }
        }
        return new Sample(at, written, rows, expired, bytes, store.sweptInTheBackground());
    }
}
