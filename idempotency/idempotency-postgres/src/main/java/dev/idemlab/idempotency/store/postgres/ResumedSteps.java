package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.store.postgres.Workflow.Progress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What earlier holders of one request left for a retry to resume, read in one statement (one snapshot):
 * the outputs of its recovery points, and the remote steps they started and never finished, each
 * {@code started} or, once a retry stopped there, {@code unknown}. Immutable.
 *
 * @param progress the finished steps' outputs, in step order
 * @param markers each started and unfinished step's state, by its phase (a deploy that inserts a step
 *     moves step numbers, never phases)
 * @param inFlight by phase, how long a call of a marker's holder may still be on its way, for markers
 *     where it may
 */
record ResumedSteps(Progress progress, Map<String, String> markers, Map<String, Duration> inFlight) {

    static final String STARTED = "started";
    static final String UNKNOWN = "unknown";

    ResumedSteps {
        markers = Map.copyOf(markers);
        inFlight = Map.copyOf(inFlight);
    }

    static ResumedSteps none() {
        return new ResumedSteps(Progress.none(), Map.of(), Map.of());
    }

    /** The state of step {@code phase}'s marker ({@link #STARTED} or {@link #UNKNOWN}), or {@code null}. */
    String marker(String phase) {
        return markers.get(phase);
    }

    /** How long a call of the holder that marked {@code phase} may still be on its way; empty when it cannot. */
    Optional<Duration> inFlight(String phase) {
        return Optional.ofNullable(inFlight.get(phase));
    }

    /**
     * Reads what this request's holders left on {@code namespace}, never another request's points.
     *
     * @throws IdempotencyKeyReuseException if another request (another fingerprint) on the key stopped at a
     *     step of unknown outcome: the key stays that request's until the step is resolved, as a completed
     *     record stays its request's
     */
    static ResumedSteps read(PostgresIdempotencyStore store, String namespace, IdempotencyContext context) {
        Map<String, String> outputs = new LinkedHashMap<>();
        Map<String, String> markers = new HashMap<>();
        Map<String, Duration> inFlight = new HashMap<>();
        String otherRequest = null;
        try (Connection connection = store.pool().getConnection();
             PreparedStatement statement = connection.prepareStatement(store.statements().stepsOf)) {
            String key = store.keyOf(namespace);
            statement.setString(1, key);
            statement.setString(2, context.fingerprint());
            statement.setString(3, key);
            statement.setString(4, context.fingerprint());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String state = rows.getString("state");
                    // The statement returns another request's rows only where they stop the key: its stops.
                    if (!state.equals("done") && !context.fingerprint().equals(rows.getString("fingerprint"))) {
                        otherRequest = rows.getString("fingerprint");
                    } else if (state.equals("done")) {
                        outputs.put(rows.getString("phase"), rows.getString("output"));
                    } else {
                        markers.put(rows.getString("phase"), state);
                        long inFlightUs = rows.getLong("in_flight_us");
                        if (inFlightUs > 0) {
                            inFlight.put(rows.getString("phase"), Duration.ofNanos(inFlightUs * 1000));
                        }
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            throw store.failure("resume", namespace, e);
        }
        if (otherRequest != null) {
            throw new IdempotencyKeyReuseException(context.operation(), context.key(), otherRequest,
                    context.fingerprint(), false);
        }
        return new ResumedSteps(new Progress(outputs), markers, inFlight);
    }
}
