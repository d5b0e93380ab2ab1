package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.StoreKeys;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HexFormat;
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
 *     if (charges.isEmpty()) {
 *         unknown.resolveAsNotDone(stopped.operation(), stopped.key(), stopped.phase());
 *     } else {
 *         unknown.resolveAsDone(stopped.operation(), stopped.key(), stopped.phase(), charges.get(0).id());
 *     }
 * }
 * }</pre>
 *
 * <p>A resolution is one statement; one of a step that is not stopped (resolved already, or never stopped)
 * changes nothing and says so. The recovery point a resolution writes is kept as long as any recovery
 * point ({@code 24 h}); a request retried later than that starts over. Immutable and thread-safe.
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
     * A step stopped at an unknown outcome.
     *
     * @param operation the call's operation
     * @param key the call's idempotency key
     * @param phase the step's phase, such as {@code charge_created}
     * @param fingerprint the fingerprint of the request whose step it is
     * @param fence the fence of the holder that started the step, or {@code 0} if it had no reservation
     * @param startedAt when, by the database's clock, that holder started it
     * @param downstreamKey the downstream key the step was called with, by the rule of
     *     {@link dev.idemlab.idempotency.IdempotencyContext} and {@link WorkflowRun#stepKey}: what to look the
     *     effect up by at the provider
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
                            rows.getTimestamp("started_at").toInstant(), stepKey(namespace, rows.getString("fingerprint"),
                            rows.getString("phase"))));
                }
            }
        } catch (SQLException | RuntimeException e) {
            throw store.failure("list unknown outcomes", null, e);
        }
        return stopped;
    }

    /**
     * The downstream key a step of the record named {@code storeKey} was called with: {@code idem_}, the
     * first 40 hex characters of the SHA-256 of the record's name (the context's rule), then the
     * fingerprint's first characters and the phase ({@link WorkflowRun#stepKey}'s rule).
     */
    private static String stepKey(String storeKey, String fingerprint, String phase) {
        byte[] hash;
        try {
            hash = MessageDigest.getInstance("SHA-256").digest(storeKey.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        String downstream = "idem_" + HexFormat.of().formatHex(hash).substring(0, 40);
        return downstream + ":" + fingerprint.substring(0, Math.min(WorkflowRun.FINGERPRINT_IN_STEP_KEY,
                fingerprint.length())) + ":" + phase;
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
        return resolve(operation, key, phase, store.statements().resolveAsDone, output);
    }

    /**
     * Resolves the stopped step {@code phase} of {@code operation} and {@code key} as not done (the
     * provider holds nothing under its downstream key): the next retry of the request runs it again.
     *
     * @return {@code true} if it was stopped and is now resolved; {@code false} if no such step was stopped
     * @throws dev.idemlab.idempotency.spi.IdempotencyStoreException if the database cannot be written
     */
    public boolean resolveAsNotDone(String operation, String key, String phase) {
        return resolve(operation, key, phase, store.statements().resolveAsNotDone, null);
    }

    private boolean resolve(String operation, String key, String phase, String sql, String output) {
        String namespace = Objects.requireNonNull(operation, "operation") + ":" + Objects.requireNonNull(key, "key");
        try (Connection connection = store.pool().getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setString(2, Objects.requireNonNull(phase, "phase"));
            if (output != null) {
                statement.setString(3, output);
                statement.setLong(4, WorkflowRun.RECOVERY_POINTS_KEPT.toNanos() / 1000);
            }
            return statement.executeUpdate() > 0;
        } catch (SQLException | RuntimeException e) {
            throw store.failure("resolve an unknown outcome", namespace, e);
        }
    }
}
