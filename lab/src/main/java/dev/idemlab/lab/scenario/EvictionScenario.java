package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.policy.LabPolicy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Memory pressure on a Redis that may evict: the lab's own private Redis is given a small
 * {@code maxmemory} ({@value #MAX_MEMORY}) and a policy, a charge completes, and then other data
 * fills the server. Under {@code allkeys-lru} the completed record is evicted and the retry charges
 * again; the store said so when it started (it warns when the policy can evict its records). Under
 * {@code noeviction} the server refuses the filler instead, the record stays, and the retry replays.
 * The server's settings are put back afterwards. A Redis given by URL is never reconfigured: there the
 * scenario does not run.
 */
public final class EvictionScenario implements Scenario {

    static final String MAX_MEMORY = "4mb";
    private static final int FILLER_VALUE_BYTES = 16 * 1024;
    private static final int MAX_FILLER_KEYS = 2_000;

    private final boolean noEviction;

    public EvictionScenario(boolean noEviction) {
        this.noEviction = noEviction;
    }

    @Override
    public String name() {
        return "eviction";
    }

    @Override
    public String summary() {
        return "memory pressure on a Redis that may evict a completed record";
    }

    private String policy() {
        return noEviction ? "noeviction" : "allkeys-lru";
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        String cannot = CannotStage.unlessPrivateRedis("eviction", "sets maxmemory and maxmemory-policy on",
                context.backend(), null);
        if (cannot != null) {
            throw new CannotStageException(cannot);
        }
        RedisBackend redis = (RedisBackend) context.backend();
        RedisClient client = RedisClient.create(redis.uri());
        String filler = "idemlab-filler-" + UUID.randomUUID() + ":";
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> raw = connection.sync();
            Map<String, String> before = Map.of("maxmemory", raw.configGet("maxmemory").get("maxmemory"),
                    "maxmemory-policy", raw.configGet("maxmemory-policy").get("maxmemory-policy"));
            try {
                raw.configSet("maxmemory", MAX_MEMORY);
                raw.configSet("maxmemory-policy", policy());
                return stage(context, policy, raw, filler);
            } finally {
                raw.configSet("maxmemory", before.get("maxmemory"));
                raw.configSet("maxmemory-policy", before.get("maxmemory-policy"));
                ScanIterator.scan(raw, ScanArgs.Builder.matches(filler + "*").limit(500)).forEachRemaining(raw::unlink);
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private ScenarioRun stage(ScenarioContext context, LabPolicy policy, RedisCommands<String, String> raw,
                              String filler) {
        // A store opened now reads the policy just set, and warns when it can evict.
        try (IdempotencyStore store = context.backend().openStore()) {
            RedisIdempotencyStore redisStore = (RedisIdempotencyStore) store;
            Timeline timeline = new Timeline();
            try (ScenarioProvider provider = context.openProvider(timeline, options -> options)) {
                IdempotencyCoordinator coordinator = context.coordinator(new TimelineStore(store, timeline), policy);
                ChargeClient client = new ChargeClient(coordinator, provider.client(), timeline);
                client.startClock();
                List<CallerResult> callers = new ArrayList<>();
                String key = context.settings().key() + "-" + UUID.randomUUID().toString().substring(0, 8);
                callers.add(client.charge("first call", key, ScenarioSettings.AMOUNT));
                String recordKey = redisStore.keyOf(ChargeClient.OPERATION + ":" + key);
                int written = fill(raw, filler, recordKey);
                boolean evicted = raw.exists(recordKey) == 0;
                timeline.record(Timeline.COORDINATOR, Timeline.COORDINATOR, "memory pressure: " + written
                        + " filler keys of " + FILLER_VALUE_BYTES / 1024 + " KiB; the record is "
                        + (evicted ? "evicted" : "still there"), false);
                callers.add(client.charge("retry", key, ScenarioSettings.AMOUNT));
                Map<String, Object> reported = new LinkedHashMap<>(context.reportedSettings());
                reported.put("maxmemory", MAX_MEMORY);
                reported.put("maxmemoryPolicy", policy());
                reported.put("storeWarned", redisStore.canEvictRecords());
                reported.put("recordEvicted", evicted);
                reported.put("mitigated", noEviction);
                String note = "the store read maxmemory-policy " + redisStore.evictionPolicy() + " at start and "
                        + (redisStore.canEvictRecords() ? "warned that it can evict records" : "did not warn")
                        + "; under pressure the record was " + (evicted ? "evicted" : "kept");
                return new ScenarioRun(name(), StagedScenario.policyName(policy), policy(), context.backend().server(),
                        reported, callers, provider.chargeIds(), coordinator.stats().totalStorageErrors(), note,
                        timeline.events());
            }
        }
    }

    /**
     * Writes filler until the record is gone or the server refuses writes (noeviction answers OOM),
     * bounded by a key count; returns how many filler keys were written.
     */
    private static int fill(RedisCommands<String, String> raw, String filler, String recordKey) {
        String value = "x".repeat(FILLER_VALUE_BYTES);
        int written = 0;
        for (int i = 0; i < MAX_FILLER_KEYS && raw.exists(recordKey) == 1; i++) {
            try {
                raw.set(filler + i, value);
                written++;
            } catch (io.lettuce.core.RedisCommandExecutionException oom) {
                break; // noeviction: the server is full and refuses writes; nothing is evicted
            }
        }
        return written;
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return List.of(LabPolicy.WAIT);
    }
}
