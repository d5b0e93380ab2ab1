package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.postgres.Workflow.Progress;
import dev.idemlab.idempotency.store.postgres.Workflow.Step;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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
 * <p>A remote step is marked started, in a transaction of its own, before it calls out; its recovery point
 * deletes the marker. A run that finds a marker of its request knows an earlier holder started the step and
 * never finished it (it died, failed or was taken over), and settles it by the step's
 * {@link IfOutcomeUnknown}: run it again, ask the other system first, or stop with
 * {@link StepOutcomeUnknownException}, marking the step "unknown" for every later retry.
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
    private final StepTransactions transactions;
    /** Whether this run deleted the recovery points other requests left on the key; its first point does. */
    private boolean otherRequestsForgotten;

    WorkflowRun(PostgresIdempotencyStore store, Workflow workflow, boolean held, StepTransactions transactions) {
        this.store = store;
        this.steps = workflow.steps();
        this.held = held;
        this.transactions = transactions;
    }

    /** The local steps' transactions on a connection of {@code store}'s pool, committed by this library. */
    static StepTransactions onPool(PostgresIdempotencyStore store) {
        return new StepTransactions() {
            @Override
            public <T> T inTransaction(String phase, Work<T> work) throws Exception {
                Connection connection = Transactions.open(store);
                boolean committed = false;
                try {
                    T value = work.run(connection);
                    connection.commit();
                    committed = true;
                    return value;
                } finally {
                    Transactions.end(connection, committed);
                }
            }
        };
    }

    @Override
    public Progress run(IdempotencyContext context) throws Exception {
        String namespace = namespaceOf(context);
        ResumedSteps resumed = namespace == null ? ResumedSteps.none() : ResumedSteps.read(store, namespace, context);
        Progress progress = resumed.progress();
        for (int index = 0; index < steps.size(); index++) {
            Step step = steps.get(index);
            if (progress.finished(step.phase())) {
                continue;
            }
            String output = step.local() != null
                    ? local(namespace, index, step, progress, context)
                    : remote(namespace, index, step, progress, context, resumed);
            progress = progress.with(step.phase(), output);
        }
        return progress;
    }

    private String local(String namespace, int index, Step step, Progress progress, IdempotencyContext context)
            throws Exception {
        return transactions.inTransaction(step.phase(), connection -> {
            String output = step.local().run(connection, progress, context);
            // Checked after the effect, as EffectTransaction completes last: the lock it takes keeps a
            // takeover out only until the commit, and leaves the holder's renewals free while the step runs.
            holdFence(connection, namespace, context);
            recordStep(connection, namespace, context, index, step.phase(), output);
            return output;
        });
    }

    /**
     * A remote step: settled without a call if an earlier holder's marker and the step's policy say so;
     * otherwise marked started (fenced), called, and recorded with its marker deleted.
     */
    private String remote(String namespace, int index, Step step, Progress progress, IdempotencyContext context,
                          ResumedSteps resumed) throws Exception {
        String downstreamKey = stepKey(context, step.phase());
        if (resumed.marker(step.phase()) != null) {
            Optional<String> settled = settleUnknown(namespace, index, step, progress, context, resumed, downstreamKey);
            if (settled.isPresent()) {
                return settled.get();
            }
        }
        // Fenced where held: a holder that was taken over stops here rather than call out; a new holder of the
        // same request carries the same downstream key, so even a call made just before the takeover happens
        // once with a provider that deduplicates on it (a holder of another request calls under keys of its
        // own, for effects of its own). Committed before the call, so that a holder's death after it is seen.
        recordInOwnTransaction(namespace, context, connection -> markStarted(connection, namespace, context, index,
                step, downstreamKey));
        String output = step.remote().run(progress, downstreamKey, context);
        recordRemote(namespace, context, index, step.phase(), output);
        return output;
    }

    /**
     * A step an earlier holder of this request started and never finished, settled by its policy: the
     * output its recovery point now records, when no call is needed; empty when the step is to run.
     *
     * @throws StepOutcomeUnknownException if the step is stopped at its unknown outcome, now or earlier
     * @throws IdempotencyInProgressException if the step asks first and a call of the holder that marked it
     *     may still be on its way (its lease and the step's provider deadline have not passed since): a
     *     lookup now could answer "not found" to a charge that lands after it
     */
    private Optional<String> settleUnknown(String namespace, int index, Step step, Progress progress,
                                           IdempotencyContext context, ResumedSteps resumed, String downstreamKey)
            throws Exception {
        StepOutcomeUnknownException stopped = new StepOutcomeUnknownException(context.operation(), context.key(),
                step.phase(), context.fingerprint());
        if (resumed.marker(step.phase()).equals(ResumedSteps.UNKNOWN)) {
            throw stopped;
        }
        switch (step.ifUnknown()) {
            case ASK_FIRST -> {
                Optional<Duration> inFlight = resumed.inFlight(step.phase());
                if (inFlight.isPresent()) {
                    throw new IdempotencyInProgressException(context.operation(), context.key(), inFlight.get());
                }
                Optional<String> found = step.lookup().find(progress, downstreamKey, context);
                if (found == null) {
                    throw new IllegalStateException("the lookup of step " + step.phase() + " returned null; it "
                            + "returns the step's output, or empty when the effect is not there");
                }
                if (found.isPresent()) {
                    recordRemote(namespace, context, index, step.phase(), found.get());
                }
                return found;
            }
            case STOP -> {
                recordInOwnTransaction(namespace, context, connection -> markUnknown(connection, namespace, context,
                        step.phase()));
                throw stopped;
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /** Records a remote step's point and deletes its started marker, in one fenced transaction. */
    private void recordRemote(String namespace, IdempotencyContext context, int index, String phase, String output) {
        recordInOwnTransaction(namespace, context, connection -> {
            recordStep(connection, namespace, context, index, phase, output);
            try (PreparedStatement statement = connection.prepareStatement(store.statements().forgetStart)) {
                statement.setString(1, store.keyOf(namespace));
                statement.setString(2, phase);
                statement.executeUpdate();
            }
        });
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
                statement.setString(2, store.keyOf(namespace));
                statement.executeUpdate();
            }
        });
    }

    /** Each step's transaction ended with the step. */
    @Override
    public void close() {
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
     * Writes a recovery point of this request; the run's first point or marker also deletes, in the same
     * transaction (fenced where held), those other requests left on the key, which this run never read and
     * whose step numbers its own take.
     */
    private void recordStep(Connection connection, String namespace, IdempotencyContext context, int index,
                            String phase, String output) throws SQLException {
        if (namespace == null) {
            return;
        }
        String key = store.keyOf(namespace);
        forgetOtherRequests(connection, key, context);
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
     * Marks remote step {@code index} of this request started, with the fence of the holder that starts it,
     * the step's policy and downstream key (a sweep and another request read them), and when a call it
     * makes can no longer be on its way: its lease as the reservation has it now, plus the step's deadline.
     */
    private void markStarted(Connection connection, String namespace, IdempotencyContext context, int index,
                             Step step, String downstreamKey) throws SQLException {
        String key = store.keyOf(namespace);
        forgetOtherRequests(connection, key, context);
        try (PreparedStatement statement = connection.prepareStatement(store.statements().markStarted)) {
            statement.setString(1, key);
            statement.setInt(2, index);
            statement.setString(3, step.phase());
            statement.setString(4, context.fingerprint());
            if (context.reserved()) {
                statement.setLong(5, context.fence());
            } else {
                statement.setNull(5, Types.BIGINT);
            }
            statement.setLong(6, RECOVERY_POINTS_KEPT.toNanos() / 1000);
            statement.setString(7, step.ifUnknown().name());
            statement.setString(8, downstreamKey);
            statement.setString(9, key);
            statement.setLong(10, context.fence());
            statement.setLong(11, step.providerDeadline().toNanos() / 1000);
            statement.executeUpdate();
        }
    }

    /**
     * Keeps step {@code phase} of this request as "unknown outcome", for every later retry, and pins the
     * request's recovery points with it: resolved after their ttl, the request still resumes after them.
     */
    private void markUnknown(Connection connection, String namespace, IdempotencyContext context, String phase)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(store.statements().markUnknown)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setString(2, phase);
            statement.setString(3, context.fingerprint());
            statement.executeUpdate();
        }
    }

    private void forgetOtherRequests(Connection connection, String key, IdempotencyContext context)
            throws SQLException {
        if (otherRequestsForgotten) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(store.statements().forgetOtherRequestsSteps)) {
            statement.setString(1, key);
            statement.setString(2, context.fingerprint());
            statement.setString(3, key);
            statement.setString(4, context.fingerprint());
            statement.executeUpdate();
        }
        otherRequestsForgotten = true;
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
