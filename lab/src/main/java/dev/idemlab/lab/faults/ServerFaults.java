package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.idemlab.lab.faults.ConcurrencyFaults.awaitTrue;
import static dev.idemlab.lab.faults.FaultCase.Outcome.of;
import static dev.idemlab.lab.faults.FaultRig.CHARGE;
import static dev.idemlab.lab.faults.FaultRig.call;
import static dev.idemlab.lab.faults.FaultRig.key;

/** Faults of the servers themselves, injected on the real Redis and PostgreSQL (cases 10, 11, 17, 18, 24, 25, 28, 34, 35). */
final class ServerFaults {

    private static final List<String> REDIS = List.of("redis");
    private static final List<String> POSTGRES = List.of("postgres");

    private ServerFaults() { }

    static List<FaultCase> all() {
        return List.of(
                new Case(10, "the store is down at reserve", "the store's server stopped for real (a second private "
                        + "server, stopped after the client connected)", "I5: fail open, counted; one charge",
                        Case.NETWORK, ServerFaults::storeDown),
                new Case(11, "ghost reservation: a stall past the client's timeout", "CLIENT PAUSE 1500 ALL, "
                        + "store patience 0 (fail open at once)", "the late marker becomes the caller's record: the retry "
                        + "replays, never 409 and a second charge", REDIS, rig -> redisPause(rig, "ALL", Duration.ZERO)),
                new Case(17, "latency above the client timeout, below the lease", "CLIENT PAUSE 1500 ALL, default "
                        + "store patience (2 s)", "the stall is waited out: no fail-open, one charge", REDIS,
                        rig -> redisPause(rig, "ALL", IdempotencyConfig.DEFAULT_STORE_PATIENCE)),
                new Case(18, "write-only pause", "CLIENT PAUSE 1500 WRITE, default store patience",
                        "the stall is waited out: no fail-open, one charge", REDIS,
                        rig -> redisPause(rig, "WRITE", IdempotencyConfig.DEFAULT_STORE_PATIENCE)),
                new Case(24, "PostgreSQL backend killed under the client", "pg_terminate_backend of every store "
                        + "connection, then the call", "I1/I5: at most one charge, any fail-open counted", POSTGRES,
                        ServerFaults::terminatedBackends),
                new Case(25, "PostgreSQL stalled on a held lock", "LOCK TABLE ... ACCESS EXCLUSIVE held across the "
                        + "call, store patience 0", "lock_timeout cancels the reserve (nothing lands late); the "
                        + "retry replays the fail-open charge", POSTGRES, ServerFaults::heldLock),
                new Case(28, "REINDEX CONCURRENTLY under claims", "REINDEX INDEX CONCURRENTLY of the key's index "
                        + "while 200 keys are claimed", "every key acquired once, no storage error", POSTGRES,
                        ServerFaults::reindex),
                new Case(34, "corrupted record", "bytes that are not a record written under the record's key (Redis), "
                        + "a row with an unknown state (PostgreSQL)", "refused as unreadable: never a miss, never "
                        + "an outage, no charge", Case.NETWORK, ServerFaults::corrupted),
                new Case(35, "record of an older schema", "a record of the earlier JSON encoding, schema version 1 "
                        + "(Redis); a table of schema version 1 (PostgreSQL)", "refused: unreadable record / the store "
                        + "will not open the table; no charge", Case.NETWORK, ServerFaults::oldSchema));
    }

    private static FaultCase.Outcome storeDown(FaultRig rig) throws Exception {
        FakePaymentProvider provider = FaultRig.provider();
        try (var outage = rig.outage()) {
            IdempotencyCoordinator coordinator = rig.coordinator(outage.store(), IdempotencyConfig.ofDefaults());
            IdempotentResult<Charge> result = coordinator.call(call(key(), 10), CHARGE, () -> provider.charge("o-1", 10, null));
            boolean holds = result.outcome() == dev.idemlab.idempotency.Outcome.FAILED_OPEN
                    && coordinator.stats().totalStorageErrors() >= 1 && provider.chargeCount() == 1;
            return of(holds, result.outcome() + ", storage errors " + coordinator.stats().totalStorageErrors()
                    + ", duplicate risk " + coordinator.stats().duplicateRisk() + "; ledger " + provider.chargeIds());
        }
    }

    private static FaultCase.Outcome redisPause(FaultRig rig, String mode, Duration patience) throws Exception {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyStore store = rig.store();
        IdempotencyCoordinator coordinator = rig.coordinator(store,
                IdempotencyConfig.custom().storePatience(patience).build());
        String key = key();
        rig.redis().dispatch(io.lettuce.core.protocol.CommandType.CLIENT,
                new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                        .add("PAUSE").add(1500).add(mode));
        IdempotentResult<Charge> first = coordinator.call(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
        boolean settled = awaitTrue(() -> store.lookup(call(key, 10).namespace()).orElse(null) instanceof Completed);
        IdempotentResult<Charge> retry = coordinator.call(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
        boolean holds = provider.chargeIds().equals(List.of("ch_1")) && settled
                && (patience.isZero() || first.outcome() == dev.idemlab.idempotency.Outcome.EXECUTED);
        return of(holds, "first " + first.outcome() + " " + first.value().id() + ", record completed: " + settled
                + ", retry " + retry.outcome() + " " + retry.value().id() + "; ledger " + provider.chargeIds());
    }

    private static FaultCase.Outcome terminatedBackends(FaultRig rig) throws Exception {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyStore store = rig.store();
        IdempotencyCoordinator coordinator = rig.coordinator(store, IdempotencyConfig.ofDefaults());
        String key = key();
        coordinator.call(call(key(), 10), CHARGE, () -> provider.charge("o-0", 10, null)); // the pool is warm
        try (Connection admin = rig.postgres(); Statement statement = admin.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    + "WHERE application_name LIKE 'idempotency-store%' AND pid <> pg_backend_pid()");
        }
        long before = provider.chargeCount();
        IdempotentResult<Charge> first = coordinator.call(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
        IdempotentResult<Charge> retry = coordinator.call(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
        long charges = provider.chargeCount() - before;
        long failOpens = coordinator.stats().count(dev.idemlab.idempotency.Outcome.FAILED_OPEN);
        boolean holds = charges <= 1 + failOpens;
        return of(holds, "first " + first.outcome() + ", retry " + retry.outcome() + "; " + charges + " charge(s), "
                + failOpens + " counted fail-open(s)");
    }

    private static FaultCase.Outcome heldLock(FaultRig rig) throws Exception {
        FakePaymentProvider provider = FaultRig.provider();
        PostgresIdempotencyStore store = (PostgresIdempotencyStore) rig.store();
        IdempotencyCoordinator coordinator = rig.coordinator(store,
                IdempotencyConfig.custom().storePatience(Duration.ZERO).build());
        String key = key();
        IdempotentResult<Charge> first;
        try (Connection locker = rig.postgres()) {
            locker.setAutoCommit(false);
            try (Statement statement = locker.createStatement()) {
                statement.execute("LOCK TABLE " + store.config().table() + " IN ACCESS EXCLUSIVE MODE");
            }
            first = coordinator.call(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
            locker.rollback();
        }
        boolean settled = awaitTrue(() -> store.lookup(call(key, 10).namespace()).orElse(null) instanceof Completed);
        IdempotentResult<Charge> retry = coordinator.call(call(key, 10), CHARGE, () -> provider.charge("o-1", 10, null));
        boolean holds = settled && provider.chargeIds().equals(List.of("ch_1"));
        return of(holds, "first " + first.outcome() + ", record completed once the lock went: " + settled
                + ", retry " + retry.outcome() + "; ledger " + provider.chargeIds());
    }

    private static FaultCase.Outcome reindex(FaultRig rig) throws Exception {
        PostgresIdempotencyStore store = (PostgresIdempotencyStore) rig.store();
        String table = store.config().table();
        ExecutorService reindexer = Executors.newSingleThreadExecutor();
        int acquired = 0;
        int errors = 0;
        try (Connection admin = rig.postgres()) {
            Future<?> running = reindexer.submit(() -> {
                try (Statement statement = admin.createStatement()) {
                    for (int i = 0; i < 3; i++) {
                        statement.execute("REINDEX INDEX CONCURRENTLY " + table + "_pkey");
                    }
                }
                return null;
            });
            for (int i = 0; i < 200; i++) {
                try {
                    if (store.reserve("payment.charge:" + key(), "t", "a".repeat(64), Duration.ofSeconds(30))
                            instanceof dev.idemlab.idempotency.spi.Reservation.Acquired) {
                        acquired++;
                    }
                } catch (RuntimeException e) {
                    errors++;
                }
            }
            running.get(60, TimeUnit.SECONDS);
        } finally {
            reindexer.shutdownNow();
        }
        return of(acquired == 200 && errors == 0, acquired + " of 200 fresh keys acquired, " + errors + " errors");
    }

    private static FaultCase.Outcome corrupted(FaultRig rig) throws Exception {
        IdempotentCall call = call(key(), 10);
        IdempotencyStore store = rig.store();
        if (store instanceof RedisIdempotencyStore redis) {
            rig.redis().set(redis.keyOf(call.namespace()), "\u00ff\u00fe{not json");
        } else {
            PostgresIdempotencyStore postgres = (PostgresIdempotencyStore) store;
            try (Connection connection = rig.postgres(); var insert = connection.prepareStatement("INSERT INTO "
                    + postgres.config().table() + " (namespace, state, token, fingerprint, result_json, "
                    + "not_stored_reason, expires_at) VALUES (?, 'refunded', NULL, ?, '\"ch_1\"', NULL, "
                    + "now() + interval '1 hour')")) {
                insert.setString(1, postgres.keyOf(call.namespace()));
                insert.setString(2, call.fingerprint().hex());
                insert.executeUpdate();
            }
        }
        return refusedWithoutCharging(rig, store, call);
    }

    private static FaultCase.Outcome oldSchema(FaultRig rig) throws Exception {
        IdempotencyStore store = rig.store();
        if (store instanceof RedisIdempotencyStore redis) {
            IdempotentCall call = call(key(), 10);
            rig.redis().set(redis.keyOf(call.namespace()), "{\"v\":1,\"state\":\"completed\",\"fingerprint\":\""
                    + call.fingerprint().hex() + "\",\"result\":\"\\\"ch_1\\\"\"}");
            return refusedWithoutCharging(rig, store, call);
        }
        PostgresIdempotencyStore postgres = (PostgresIdempotencyStore) store;
        String table = "old_" + key().replace("-", "_").substring(6, 20);
        try (Connection connection = rig.postgres(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (namespace text PRIMARY KEY, state text NOT NULL, "
                    + "token text, fingerprint text NOT NULL, result_json text, not_stored_reason text, "
                    + "expires_at timestamptz NOT NULL)");
            statement.execute("COMMENT ON TABLE " + table + " IS 'idempotency records, schema version 1'");
        }
        try (PostgresIdempotencyStore opened = new PostgresIdempotencyStore(postgres.config().toBuilder().table(table)
                .build())) {
            return of(false, "a table of schema version 1 was opened");
        } catch (IllegalStateException refused) {
            return of(true, "refused at start: " + refused.getMessage().substring(0, Math.min(90,
                    refused.getMessage().length())) + "...");
        }
    }

    private static FaultCase.Outcome refusedWithoutCharging(FaultRig rig, IdempotencyStore store, IdempotentCall call) {
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyCoordinator coordinator = rig.coordinator(store, IdempotencyConfig.ofDefaults());
        String answer;
        try {
            answer = coordinator.execute(call, CHARGE, () -> provider.charge("o-1", 10, null)).id();
        } catch (IdempotencyRecordUnreadableException e) {
            answer = "unreadable record (" + e.httpStatus() + ")";
        }
        boolean holds = answer.startsWith("unreadable") && provider.chargeCount() == 0
                && coordinator.stats().totalStorageErrors() == 0;
        return of(holds, answer + "; " + provider.chargeCount() + " charges; storage errors "
                + coordinator.stats().totalStorageErrors());
    }
}
