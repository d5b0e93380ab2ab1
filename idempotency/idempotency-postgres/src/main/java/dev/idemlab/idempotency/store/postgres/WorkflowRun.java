package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.postgres.Workflow.Progress;
import dev.idemlab.idempotency.store.postgres.Workflow.Step;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of a {@link Workflow} for one call: reads the recovery points earlier holders of the key left,
 * runs the steps after the last of them, each with its recovery point, and completes the record in a
 * last transaction that forgets the recovery points. Held (the coordinator reserved the key), every
 * recovery point is written only while this reservation's fence still holds the key, under a lock that
 * keeps a takeover out until it commits; not held (no key, or failing open), without that check. Not
 * thread-safe: one per call.
 */
final class WorkflowRun implements LocalTransaction<Progress, Exception> {

    /** How long a recovery point is kept for a retry that resumes; the sweep deletes it after that. */
    static final Duration RECOVERY_POINTS_KEPT = Duration.ofHours(24);

    private final PostgresIdempotencyStore store;
    private final List<Step> steps;
    private final boolean held;

    WorkflowRun(PostgresIdempotencyStore store, Workflow workflow, boolean held) {
        this.store = store;
        this.steps = workflow.steps();
        this.held = held;
    }

    @Override
    public Progress run(IdempotencyContext context) throws Exception {
        String namespace = namespaceOf(context);
        Progress progress = namespace == null ? Progress.none() : resumed(namespace);
        for (int index = 0; index < steps.size(); index++) {
            Step step = steps.get(index);
            if (progress.finished(step.phase())) {
                continue;
            }
            String output = step.local() != null
                    ? local(namespace, index, step, progress, context)
                    : remote(namespace, index, step, progress, context);
            progress = progress.with(step.phase(), output);
        }
        return progress;
    }

    private String local(String namespace, int index, Step step, Progress progress, IdempotencyContext context)
            throws Exception {
        Connection connection = Transactions.open(store);
        boolean committed = false;
        try {
            String output = step.local().run(connection, progress, context);
            // Checked after the effect, as EffectTransaction completes last: the lock it takes keeps a
            // takeover out only until the commit, and leaves the holder's renewals free while the step runs.
            holdFence(connection, namespace, context);
            recordStep(connection, namespace, index, step.phase(), output);
            connection.commit();
            committed = true;
            return output;
        } finally {
            Transactions.end(connection, committed);
        }
    }

    private String remote(String namespace, int index, Step step, Progress progress, IdempotencyContext context)
            throws Exception {
        if (held) {
            // A holder that was taken over stops here rather than call out; the new holder's call carries
            // the same downstream key, so even a call made just before the takeover happens once.
            recordInOwnTransaction(namespace, context, connection -> { });
        }
        String key = context.downstreamKey() == null ? null : context.downstreamKey() + ":" + step.phase();
        String output = step.remote().run(progress, key, context);
        recordInOwnTransaction(namespace, context,
                connection -> recordStep(connection, namespace, index, step.phase(), output));
        return output;
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        Connection connection = Transactions.open(store);
        boolean committed = false;
        try {
            committed = Transactions.completeAndCommit(store, connection, namespace, token, fingerprint, result, ttl);
            return committed;
        } finally {
            Transactions.end(connection, committed);
        }
    }

    /** Forgets the recovery points of a run that had no reservation to complete. */
    void forgetSteps(IdempotencyContext context) {
        String namespace = namespaceOf(context);
        if (namespace == null) {
            return;
        }
        recordInOwnTransaction(namespace, context, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(store.statements().forgetSteps)) {
                statement.setString(1, store.keyOf(namespace));
                statement.executeUpdate();
            }
        });
    }

    /** Each step's transaction ended with the step. */
    @Override
    public void close() {
    }

    private Progress resumed(String namespace) {
        Map<String, String> outputs = new LinkedHashMap<>();
        try (Connection connection = store.pool().getConnection();
             PreparedStatement statement = connection.prepareStatement(store.statements().stepsOf)) {
            statement.setString(1, store.keyOf(namespace));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    outputs.put(rows.getString("phase"), rows.getString("output"));
                }
            }
        } catch (SQLException | RuntimeException e) {
            throw store.failure("resume", namespace, e);
        }
        return new Progress(outputs);
    }

    private void recordInOwnTransaction(String namespace, IdempotencyContext context, SqlWork work) {
        if (namespace == null) {
            return;
        }
        Connection connection = Transactions.open(store);
        boolean committed = false;
        try {
            holdFence(connection, namespace, context);
            work.run(connection);
            connection.commit();
            committed = true;
        } catch (SQLException e) {
            throw store.failure("record a recovery point", namespace, e);
        } finally {
            Transactions.end(connection, committed);
        }
    }

    /** Held: locks the reservation of this fence until the transaction ends, or refuses a holder taken over. */
    private void holdFence(Connection connection, String namespace, IdempotencyContext context) throws SQLException {
        if (!held) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(store.statements().holdFence)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setLong(2, context.fence());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    throw new IdempotencyFencedException(context.operation(), context.key(), context.fence());
                }
            }
        }
    }

    private void recordStep(Connection connection, String namespace, int index, String phase, String output)
            throws SQLException {
        if (namespace == null) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(store.statements().recordStep)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setInt(2, index);
            statement.setString(3, phase);
            statement.setString(4, output);
            statement.setLong(5, RECOVERY_POINTS_KEPT.toNanos() / 1000);
            statement.executeUpdate();
        }
    }

    /** {@code operation:key}, or {@code null} for a call without a key (nothing to resume, nothing recorded). */
    private static String namespaceOf(IdempotencyContext context) {
        return context.key() == null ? null : context.operation() + ":" + context.key();
    }

    @FunctionalInterface
    private interface SqlWork {
        void run(Connection connection) throws SQLException;
    }
}
