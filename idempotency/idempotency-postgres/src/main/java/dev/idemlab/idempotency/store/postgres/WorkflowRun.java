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
 * One run of a {@link Workflow} for one call: reads the recovery points earlier holders of the same
 * request left, runs the steps after the last of them, each with its recovery point, and completes the
 * record in a last transaction that forgets the recovery points.
 *
 * <p>A recovery point belongs to one request: the call's key and its fingerprint. Another request may
 * reserve the key once an earlier one failed and released it (failures are not cached); its run never
 * reads the earlier request's points, and its first recovery point deletes them in the same transaction,
 * so that they are gone once the other request's first step landed. A request whose key another one took
 * over in between thus starts over when retried, as after any request that failed and was not retried:
 * the effects of its earlier steps (an order row) stay where they are, and no record points to them.
 *
 * <p>Held (the coordinator reserved the key), every
 * recovery point is written only while this reservation's fence still holds the key, under a lock that
 * keeps a takeover out until it commits; not held (no key, or failing open), without that check. Not
 * thread-safe: one per call.
 */
final class WorkflowRun implements LocalTransaction<Progress, Exception> {

    /** How long a recovery point is kept for a retry that resumes; the sweep deletes it after that. */
    static final Duration RECOVERY_POINTS_KEPT = Duration.ofHours(24);
    /**
     * How many characters of the fingerprint (hex) a remote step's downstream key carries: 64 bits, enough
     * to tell apart the few requests that ever use one key, and short enough for a provider's key rules.
     */
    static final int FINGERPRINT_IN_STEP_KEY = 16;

    private final PostgresIdempotencyStore store;
    private final List<Step> steps;
    private final boolean held;
    /** Whether this run deleted the recovery points other requests left on the key; its first point does. */
    private boolean otherRequestsForgotten;

    WorkflowRun(PostgresIdempotencyStore store, Workflow workflow, boolean held) {
        this.store = store;
        this.steps = workflow.steps();
        this.held = held;
    }

    @Override
    public Progress run(IdempotencyContext context) throws Exception {
        String namespace = namespaceOf(context);
        Progress progress = namespace == null ? Progress.none() : resumed(namespace, context.fingerprint());
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
            recordStep(connection, namespace, context, index, step.phase(), output);
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
            // A holder that was taken over stops here rather than call out; a new holder of the same request
            // carries the same downstream key, so even a call made just before the takeover happens once (a
            // holder of another request calls under keys of its own, for effects of its own).
            recordInOwnTransaction(namespace, context, connection -> { });
        }
        String output = step.remote().run(progress, stepKey(context, step.phase()), context);
        recordInOwnTransaction(namespace, context,
                connection -> recordStep(connection, namespace, context, index, step.phase(), output));
        return output;
    }

    /**
     * The downstream key of a remote step: the call's downstream key, the first
     * {@value #FINGERPRINT_IN_STEP_KEY} characters of the request's fingerprint, and the phase
     * ({@code idem_<40 hex>:<16 hex>:charge_created}); {@code null} without a downstream key. It is the
     * same for every retry of this request's step, so that a provider deduplicating on it makes the step
     * happen once. Another request on the same key (another body, run after this one failed and released
     * the key) gets keys of its own: such a provider neither refuses its charge of another order or amount
     * nor answers it with this request's charge.
     */
    static String stepKey(IdempotencyContext context, String phase) {
        if (context.downstreamKey() == null) {
            return null;
        }
        String fingerprint = context.fingerprint();
        return fingerprint == null ? context.downstreamKey() + ":" + phase : context.downstreamKey() + ":"
                + fingerprint.substring(0, Math.min(FINGERPRINT_IN_STEP_KEY, fingerprint.length())) + ":" + phase;
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

    /** The outputs of the recovery points this request's earlier holders left, never another request's. */
    private Progress resumed(String namespace, String fingerprint) {
        Map<String, String> outputs = new LinkedHashMap<>();
        try (Connection connection = store.pool().getConnection();
             PreparedStatement statement = connection.prepareStatement(store.statements().stepsOf)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setString(2, fingerprint);
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

    /**
     * Writes a recovery point of this request; the run's first one also deletes, in the same transaction
     * (fenced where held), the points other requests left on the key, which this run never read and
     * whose step numbers its own points take.
     */
    private void recordStep(Connection connection, String namespace, IdempotencyContext context, int index,
                            String phase, String output) throws SQLException {
        if (namespace == null) {
            return;
        }
        String key = store.keyOf(namespace);
        if (!otherRequestsForgotten) {
            try (PreparedStatement statement = connection.prepareStatement(
                    store.statements().forgetOtherRequestsSteps)) {
                statement.setString(1, key);
                statement.setString(2, context.fingerprint());
                statement.executeUpdate();
            }
            otherRequestsForgotten = true;
        }
        try (PreparedStatement statement = connection.prepareStatement(store.statements().recordStep)) {
            statement.setString(1, key);
            statement.setInt(2, index);
            statement.setString(3, phase);
            statement.setString(4, output);
            statement.setString(5, context.fingerprint());
            statement.setLong(6, RECOVERY_POINTS_KEPT.toNanos() / 1000);
            statement.executeUpdate();
        }
    }

    /**
     * {@code operation:key}, or {@code null} for a call without a key (nothing to resume, nothing recorded).
     *
     * @throws IllegalArgumentException if the call has a key and the context no fingerprint: its recovery
     *     points could not be told apart from another request's on the same key
     */
    private static String namespaceOf(IdempotencyContext context) {
        if (context.key() == null) {
            return null;
        }
        if (context.fingerprint() == null) {
            throw new IllegalArgumentException("a workflow keeps its recovery points for one request, its key "
                    + "and its fingerprint, so the context of a call with a key needs the fingerprint; the "
                    + "coordinator's contexts carry it, a hand-built one of " + context.operation()
                    + " did not");
        }
        return context.operation() + ":" + context.key();
    }

    @FunctionalInterface
    private interface SqlWork {
        void run(Connection connection) throws SQLException;
    }
}
