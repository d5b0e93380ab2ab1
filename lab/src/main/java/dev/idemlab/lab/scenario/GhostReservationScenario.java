package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.policy.LabPolicy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The ghost reservation: the store stalls past the client's timeout while a reserve is in flight
 * ({@code CLIENT PAUSE 1500}, longer than the store's 1 s command timeout, with the coordinator's
 * store patience at 0 so it fails open at once). The caller charges; then the server resumes and the
 * reserve it had queued lands after all: a marker nobody holds. The library settles such a marker in
 * the background, completing it with the caller's result, so the retry replays: one charge. With that
 * settle dropped (the lab discards the coordinator's background writes), the ghost marker makes the
 * retry wait out its lease (2 s here) and then charge again: two charges.
 *
 * <p>On PostgreSQL the ghost cannot land: statement and lock timeouts below the socket timeout cancel
 * the stalled statement on the server ({@code lab faults}, case 25). The scenario runs on the lab's own
 * private single Redis only; a server given by URL is never paused.
 */
public final class GhostReservationScenario implements Scenario {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final int PAUSE_MS = 1500;

    private final boolean settled;

    public GhostReservationScenario(boolean settled) {
        this.settled = settled;
    }

    /** Its timing is its own: the failure it stages needs it. */
    @Override
    public List<String> fixedOptions() {
        return List.of("--lease-s");
    }

    @Override
    public String name() {
        return "ghost-reservation";
    }

    @Override
    public String summary() {
        return "the store stalls past the client's timeout during reserve, then the reserve lands";
    }

    private String label() {
        return settled ? "late marker settled" : "late marker left alone";
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        String cannot = CannotStage.unlessPrivateRedis("ghost-reservation", "pauses", context.backend(),
                "there the statement and lock timeouts cancel a stalled reserve on the server, so no ghost lands "
                        + "(lab faults, case 25)");
        if (cannot != null) {
            throw new CannotStageException(cannot);
        }
        RedisBackend redis = (RedisBackend) context.backend();
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> pauser = client.connect();
             IdempotencyStore store = context.backend().openStore()) {
            Timeline timeline = new Timeline();
            IdempotencyStore underTest = settled ? store : new BackgroundWritesDropped(store);
            try (ScenarioProvider provider = context.openProvider(timeline, options -> options)) {
                IdempotencyCoordinator coordinator = context.coordinator(new TimelineStore(underTest, timeline), policy,
                        config -> config.lease(LEASE).storePatience(Duration.ZERO).waitTimeout(LEASE.multipliedBy(3)));
                ChargeClient charges = new ChargeClient(coordinator, provider.client(), timeline);
                String key = context.settings().key() + "-" + UUID.randomUUID().toString().substring(0, 8);
                ChargeClient.warmUp(context, store, policy);
                charges.startClock();
                timeline.record(Timeline.COORDINATOR, Timeline.COORDINATOR, "CLIENT PAUSE " + PAUSE_MS
                        + " ms: the store stalls past its 1 s command timeout", false);
                pauser.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                        new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(PAUSE_MS));
                List<CallerResult> callers = new ArrayList<>();
                callers.add(charges.charge("first call", key, ScenarioSettings.AMOUNT));
                String marker = markerAfterThePause(store, key, (RedisIdempotencyStore) store);
                timeline.record(Timeline.COORDINATOR, Timeline.COORDINATOR, "after the pause the record is " + marker,
                        false);
                callers.add(charges.charge("retry", key, ScenarioSettings.AMOUNT));
                Map<String, Object> reported = new LinkedHashMap<>(context.reportedSettings());
                reported.put("leaseMs", LEASE.toMillis());
                reported.put("pauseMs", PAUSE_MS);
                reported.put("storePatienceMs", 0);
                reported.put("recordAfterThePause", marker);
                reported.put("mitigated", settled);
                String note = "CLIENT PAUSE " + PAUSE_MS + " ms during the first reserve; the record after the pause: "
                        + marker;
                return new ScenarioRun(name(), StagedScenario.policyName(policy), label(), context.backend().server(),
                        reported, callers, provider.chargeIds(), coordinator.stats().totalStorageErrors(), note,
                        timeline.events());
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** What the key holds once the pause is over and the queued reserve has run: the ghost, or its settlement. */
    private static String markerAfterThePause(IdempotencyStore store, String key, RedisIdempotencyStore redis) {
        long deadline = System.nanoTime() + Duration.ofMillis(PAUSE_MS + 1000).toNanos();
        Optional<IdempotencyRecord> record = Optional.empty();
        while (System.nanoTime() - deadline < 0) {
            try {
                record = store.lookup(ChargeClient.OPERATION + ":" + key);
                if (record.isPresent()) {
                    break; // the queued reserve has run: its marker, or the settle's record
                }
            } catch (RuntimeException stillPaused) {
                // the pause is not over yet
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
        return record.map(r -> r instanceof IdempotencyRecord.Pending ? "a pending marker nobody holds (the ghost)"
                : "completed with the first call's charge").orElse("absent");
    }

    /**
     * The real store, except that writes from the coordinator's background threads (its settling of a
     * reservation that may have landed late, which the timer starts and the store-call pool runs) are
     * dropped: the library without that mitigation. The scenario's action is shorter than a heartbeat's
     * interval, so no renewal is among them.
     */
    private static final class BackgroundWritesDropped extends ForwardingIdempotencyStore {
        BackgroundWritesDropped(IdempotencyStore delegate) {
            super(delegate);
        }

        private static boolean onTheTimer() {
            String thread = Thread.currentThread().getName();
            return thread.startsWith("idempotency-timer-") || thread.startsWith("idempotency-store-call-");
        }

        @Override
        public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
            return onTheTimer() ? false : super.complete(namespace, token, fingerprint, result, ttl);
        }

        @Override
        public boolean release(String namespace, String token) {
            return onTheTimer() ? false : super.release(namespace, token);
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            return super.renew(namespace, token, lease);
        }
    }
}
