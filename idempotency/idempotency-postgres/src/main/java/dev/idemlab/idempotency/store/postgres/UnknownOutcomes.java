package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.StoreKeys;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The workflow steps stopped at an unknown outcome ({@link IfOutcomeUnknown#STOP}), for the person or the
 * reconciliation job that settles them: list them, find out at the provider what happened (its ledger, its
 * lookup by the step's downstream key), then resolve each. Resolved as done, the step's recovery point
 * records the output given (the charge id) and the next retry of the request resumes after the step;
 * resolved as not done, the next retry runs the step again, with the same downstream key. Until then every
 * retry with the key gets {@link StepOutcomeUnknownException}.
 *
 * <pre>{@code
 * UnknownOutcomes unknown = UnknownOutcomes.of(store);
 * for (UnknownOutcomes.Stopped stopped : unknown.list(100)) {
 *     List<Charge> charges = provider.chargesWithKey(stopped.downstreamKey());
 *     if (!charges.isEmpty()) {
 *         unknown.resolveAsDone(stopped, charges.get(0).id());
 *     } else {
 *         unknown.resolveAsNotDone(stopped); // refused while a call of its holder may still land
 *     }
 * }
 * }</pre>
 *
 * <p>Listed are the stops a retry found, and the started markers of {@code STOP} steps whose holder's lease
 * is over (nobody retried yet). A resolution is one statement; one of a step that is not stopped (resolved
 * already, or never stopped) changes nothing and says so. A stop pins its request's recovery points; the
 * resolution gives them, and the recovery point it writes, the ttl of any recovery point ({@code 24 h}) again:
 * a request retried later than that starts over. Immutable and thread-safe.
 */
public final class UnknownOutcomes {

    private final PostgresIdempotencyStore store;

    private UnknownOutcomes(PostgresIdempotencyStore store) {
        this.store = store;
    }

    /** The steps stopped on {@code store}'s table, under its key prefix. */
    public static UnknownOutcomes of(PostgresIdempotencyStore store) {
        return new UnknownOutcomes(Objects.requireNonNull(store, "store"));
    }

    /**
     * A step stopped at an unknown outcome: a retry found it, or it is a {@code STOP} step's started marker
     * whose holder's lease is over.
     *
     * @param operation the call's operation
     * @param key the call's idempotency key
     * @param phase the step's phase, such as {@code charge_created}
     * @param fingerprint the fingerprint of the request whose step it is
     * @param fence the fence of the holder that started the step, or {@code 0} if it had no reservation
     * @param startedAt when, by the database's clock, that holder started it
     * @param downstreamKey the downstream key the step was called with ({@link WorkflowRun#stepKey}), as its
     *     marker recorded it: what to look the effect up by at the provider; {@code null} if the call had none
     */
    public record Stopped(String operation, String key, String phase, String fingerprint, long fence,
                          Instant startedAt, String downstreamKey) { }

    /**
     * The stopped steps, oldest first.
     *
     * @param limit the most to return, at least 1
     * @throws IllegalArgumentException if {@code limit} is below 1
     * @throws dev.idemlab.idempotency.spi.IdempotencyStoreException if the database cannot be read
     */
    public List<Stopped> list(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a listing of stopped steps returns at least 1, not " + limit);
        }
        String prefix = StoreKeys.of(store.config().namespacePrefix(), "");
        String head = prefix.substring(0, prefix.length() - 1);
        List<Stopped> stopped = new ArrayList<>();
        try (Connection connection = store.pool().getConnection();
             PreparedStatement statement = connection.prepareStatement(store.statements().unknownOutcomes)) {
            statement.setString(1, head);
            statement.setString(2, head);
            statement.setInt(3, limit);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String namespace = rows.getString("namespace");
                    String operationAndKey = namespace.substring(head.length(), namespace.length() - 1);
                    int colon = operationAndKey.indexOf(':');
                    stopped.add(new Stopped(operationAndKey.substring(0, colon), operationAndKey.substring(colon + 1),
                            rows.getString("phase"), rows.getString("fingerprint"), rows.getLong("fence"),
                            rows.getTimestamp("started_at").toInstant(), rows.getString("downstream_key")));
                }
            }
        } catch (SQLException | RuntimeException e) {
            throw store.failure("list unknown outcomes", null, e);
        }
        return stopped;
    }

    /**
     * Resolves the stopped step {@code phase} of {@code operation} and {@code key} as done: its recovery
     * point records {@code output}, and the next retry of the request resumes after it.
     *
     * @param output what the step's recovery point records, as the step would have returned it (the
     *     charge id the provider holds under the step's downstream key)
     * @return {@code true} if it was stopped and is now resolved; {@code false} if no such step was stopped
     * @throws dev.idemlab.idempotency.spi.IdempotencyStoreException if the database cannot be written
     */
    public boolean resolveAsDone(String operation, String key, String phase, String output) {
        Objects.requireNonNull(output, "output");
        return resolve(operation, key, phase, null, output);
    }

    /**
     * Resolves the stopped step {@code phase} of {@code operation} and {@code key} as not done (the
     * provider holds nothing under its downstream key): the next retry of the request runs it again.
     *
     * @return {@code true} if it was stopped and is now resolved; {@code false} if no such step was stopped
     * @throws IllegalStateException if the step's holder may still have a call on its way: not before its
     *     lease and the step's provider deadline have passed since it started the step
     * @throws dev.idemlab.idempotency.spi.IdempotencyStoreException if the database cannot be written
     */
    public boolean resolveAsNotDone(String operation, String key, String phase) {
        return resolve(operation, key, phase, null, null);
    }

    /**
     * Resolves {@code stopped} as done, only while it is that stop: the same request (fingerprint) and the
     * same holder's start (fence), so that a decision taken on an older listing cannot settle a newer stop.
     *
     * @return {@code true} if it was resolved; {@code false} if that stop is not there (any more)
     */
    public boolean resolveAsDone(Stopped stopped, String output) {
        Objects.requireNonNull(output, "output");
        return resolve(stopped.operation(), stopped.key(), stopped.phase(), stopped, output);
    }

    /**
     * Resolves {@code stopped} as not done, only while it is that stop (as {@link #resolveAsDone(Stopped,
     * String)}).
     *
     * @return {@code true} if it was resolved; {@code false} if that stop is not there (any more)
     * @throws IllegalStateException if its holder's lease and the step's provider deadline have not passed
     *     since it was started (as {@link #resolveAsNotDone(String, String, String)})
     */
    public boolean resolveAsNotDone(Stopped stopped) {
        return resolve(stopped.operation(), stopped.key(), stopped.phase(), stopped, null);
    }

    private boolean resolve(String operation, String key, String phase, Stopped which, String output) {
        String namespace = Objects.requireNonNull(operation, "operation") + ":" + Objects.requireNonNull(key, "key");
        RecordStatements statements = store.statements();
        try (Connection connection = store.pool().getConnection()) {
            long kept = WorkflowRun.RECOVERY_POINTS_KEPT.toNanos() / 1000;
            try (PreparedStatement statement = connection.prepareStatement(output == null
                    ? statements.resolveAsNotDone : statements.resolveAsDone)) {
                int next = bind(statement, namespace, Objects.requireNonNull(phase, "phase"), which);
                statement.setLong(next, kept);
                if (output != null) {
                    statement.setString(next + 1, output);
                    statement.setLong(next + 2, kept);
                }
                if (count(statement) > 0) {
                    return true;
                }
            }
            if (output == null) {
                refuseTooYoung(connection, namespace, phase, which);
            }
            return false;
        } catch (SQLException | RuntimeException e) {
            if (e instanceof IllegalStateException refused) {
                throw refused;
            }
            throw store.failure("resolve an unknown outcome", namespace, e);
        }
    }

    /**
     * Refuses to resolve as not done a stop whose holder may still have a call on its way: its lease and
     * the step's provider deadline ({@link Workflow#DEFAULT_PROVIDER_DEADLINE}) have not passed since it
     * started the step, so "the provider holds nothing" may be untrue a moment later.
     */
    private void refuseTooYoung(Connection connection, String namespace, String phase, Stopped which)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(store.statements().tooYoung)) {
            bind(statement, namespace, phase, which);
            try (ResultSet row = statement.executeQuery()) {
                if (row.next()) {
                    throw new IllegalStateException("step " + phase + " of " + namespace + " cannot be resolved as "
                            + "not done before " + row.getTimestamp(1).toInstant() + ": until its holder's lease and "
                            + "the step's provider deadline have passed since it started the step, a call it made "
                            + "may still land at the provider");
                }
            }
        }
    }

    /** Binds the stop's name and, when given, its fingerprint and fence; returns the next parameter's index. */
    private int bind(PreparedStatement statement, String namespace, String phase, Stopped which) throws SQLException {
        statement.setString(1, store.keyOf(namespace));
        statement.setString(2, phase);
        for (int i = 3; i <= 4; i++) {
            statement.setString(i, which == null ? null : which.fingerprint());
        }
        for (int i = 5; i <= 6; i++) {
            if (which == null) {
                statement.setNull(i, Types.BIGINT);
            } else {
                statement.setLong(i, which.fence());
            }
        }
        return 7;
    }

    private static long count(PreparedStatement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }
}
