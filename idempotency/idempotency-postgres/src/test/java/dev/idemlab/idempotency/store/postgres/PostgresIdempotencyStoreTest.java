package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.ResultCodec;
import java.time.Duration;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.tck.IdempotencyStoreContract;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract, and what only a real PostgreSQL can show, on the server {@link TestPostgres#provide()}
 * finds: the one given by {@code IDEMLAB_PG_URL} (in a schema of the test's), else a private one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresIdempotencyStoreTest extends IdempotencyStoreContract {

    private TestPostgres server;
    private PostgresIdempotencyStore store;
    private PostgresTable table;

    @BeforeAll
    void startServer() {
        server = TestPostgres.provide();
        store = PostgresTable.openStore(server);
        table = new PostgresTable(store);
    }

    @AfterAll
    void stopServer() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected void forceExpiry(String namespace) {
        table.expire(namespace);
    }

    @Test
    void describesItselfAsPostgresWithTheServersVersionAndAddress() {
        assertThat(store.describe().name()).isEqualTo("postgres");
        assertThat(store.describe().serverVersion()).matches("\\d+(\\.\\d+)*.*");
        assertThat(store.describe().address()).isEqualTo(server.address());
    }

    @Test
    void manyContendersOnOneKeyHaveExactlyOneWinnerInEveryRound() throws Exception {
        int contenders = 12;
        int rounds = 40;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        try {
            for (int round = 0; round < rounds; round++) {
                String ns = namespace();
                int acquired = 0;
                for (Reservation reservation : contend(pool, ns, contenders)) {
                    if (reservation instanceof Reservation.Acquired) {
                        acquired++;
                    } else {
                        assertThat(((Reservation.Found) reservation).record()).isInstanceOf(Pending.class);
                    }
                }
                assertThat(acquired).as("winners in round %d", round).isEqualTo(1);
                assertThat(table.countRows(ns)).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void contendersForAnExpiredReservationHaveExactlyOneWinnerInEveryRound() throws Exception {
        int contenders = 8;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        try {
            for (int round = 0; round < 20; round++) {
                String ns = namespace();
                store.reserve(ns, "crashed", FP, LEASE);
                table.expire(ns);
                int acquired = 0;
                for (Reservation reservation : contend(pool, ns, contenders)) {
                    if (reservation instanceof Reservation.Acquired) {
                        acquired++;
                    }
                }
                assertThat(acquired).as("winners in round %d", round).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Sends {@code contenders} reserves on one key at once, each with its own token; their answers. */
    private List<Reservation> contend(ExecutorService pool, String ns, int contenders) throws Exception {
        CyclicBarrier start = new CyclicBarrier(contenders);
        List<Future<Reservation>> answers = new ArrayList<>();
        for (int i = 0; i < contenders; i++) {
            String token = "t" + i;
            answers.add(pool.submit(() -> {
                start.await();
                return store.reserve(ns, token, FP, LEASE);
            }));
        }
        List<Reservation> reservations = new ArrayList<>();
        for (Future<Reservation> answer : answers) {
            reservations.add(answer.get(30, TimeUnit.SECONDS));
        }
        return reservations;
    }

    @Test
    void putIfAbsentTakesOverAnExpiredRecord() {
        String ns = namespace();
        completed(ns, "\"old\"");
        table.expire(ns);
        assertThat(store.reserve(ns, "t2", OTHER_FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        store.complete(ns, "t2", FP, StoredResult.of("\"new\""), TTL);
        Completed completed = (Completed) store.lookup(ns).orElseThrow();
        assertThat(completed.result().json()).isEqualTo("\"new\"");
        assertThat(completed.fingerprint()).isEqualTo(OTHER_FP);
    }

    @Test
    void aStaleHolderCannotReleaseTheTakenOverKeyEvenAfterTheNewOwnerCompleted() {
        String ns = namespace();
        store.reserve(ns, "stale", FP, LEASE);
        table.expire(ns);
        store.reserve(ns, "owner", FP, LEASE);
        store.complete(ns, "owner", FP, StoredResult.of("\"owner\""), TTL);
        assertThat(store.release(ns, "stale")).isFalse();
        assertThat(store.complete(ns, "stale", FP, StoredResult.of("\"stale\""), TTL)).isFalse();
        assertThat(((Completed) store.lookup(ns).orElseThrow()).result().json()).isEqualTo("\"owner\"");
    }

    /**
     * reserve reads the live row before it writes: an answer from a live row, in flight or completed,
     * writes nothing and draws no fencing number (a drawn one would make every thirty-second replay a
     * logged write, as the sequence logs ahead in steps of 32).
     */
    @Test
    void aReplayOrAnAnswerOfAReservationInFlightWritesNothingAndDrawsNoFence() {
        String ns = namespace();
        long fence = ((Reservation.Acquired) store.reserve(ns, "t1", FP, LEASE)).fence();
        String held = table.rowVersion(ns);
        assertThat(table.lastFence()).isEqualTo(fence);

        Reservation inFlight = store.reserve(ns, "t2", FP, LEASE);
        assertThat(((Reservation.Found) inFlight).record()).isInstanceOf(Pending.class);
        assertThat(table.rowVersion(ns)).isEqualTo(held);
        assertThat(store.complete(ns, "t1", FP, StoredResult.of("\"ch_1\""), TTL)).isTrue();
        String completed = table.rowVersion(ns);
        assertThat(completed).isNotEqualTo(held);

        Reservation replay = store.reserve(ns, "t3", FP, LEASE);
        assertThat(((Reservation.Found) replay).record()).isEqualTo(new Completed(FP, StoredResult.of("\"ch_1\"")));
        assertThat(table.rowVersion(ns)).isEqualTo(completed);
        assertThat(table.lastFence()).isEqualTo(fence);
    }

    /** A retry of the holder's own reserve (its reply lost) takes the reservation again, with a new fence. */
    @Test
    void theHoldersOwnRetriedReserveTakesItsReservationAgainWithALargerFence() {
        String ns = namespace();
        long first = ((Reservation.Acquired) store.reserve(ns, "t1", FP, LEASE)).fence();
        Reservation again = store.reserve(ns, "t1", FP, LEASE);
        assertThat(again).isInstanceOf(Reservation.Acquired.class);
        assertThat(((Reservation.Acquired) again).fence()).isGreaterThan(first);
        assertThat(store.complete(ns, "t1", FP, StoredResult.of("1"), TTL)).isTrue();
    }

    @Test
    void storesWithDifferentPrefixesShareTheTableWithoutSeeingEachOther() {
        String ns = namespace();
        try (IdempotencyStore neighbour = PostgresTable.openStore(server)) {
            assertThat(store.reserve(ns, "mine", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
            assertThat(neighbour.lookup(ns)).isEmpty();
            assertThat(neighbour.reserve(ns, "theirs", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        }
    }

    @Test
    void sweepDeletesExpiredRowsAndKeepsLiveOnes() {
        String expired = namespace();
        String live = namespace();
        completed(expired, "1");
        completed(live, "2");
        table.expire(expired);
        assertThat(store.sweepExpired()).isGreaterThanOrEqualTo(1);
        assertThat(table.countRows(expired)).isZero();
        assertThat(table.countRows(live)).isEqualTo(1);
    }

    /**
     * Issue 25: one wake of the sweeper clears a whole backlog. The store used to delete one batch,
     * inline on a reserve, every so many writes, and fell behind a steady stream; now the sweeper
     * deletes batch after batch on its own thread for as long as batches come back full. 249 rows
     * expire, 25 batches of 10; the 250th reserve wakes the sweeper, and only the live row is left.
     */
    @Test
    void oneWakeSweepsAWholeBacklogBatchAfterBatchAndLeavesLiveRows() {
        PostgresStoreConfig config = store.config();
        try (PostgresIdempotencyStore sweeping = new PostgresIdempotencyStore(PostgresStoreConfig.custom(config.jdbcUrl())
                .credentials(config.user(), config.password()).namespacePrefix("sweep-" + UUID.randomUUID() + ":")
                .sweepEveryWrites(250).sweepBatch(10).build())) {
            PostgresTable rows = new PostgresTable(sweeping);
            for (int i = 0; i < 249; i++) {
                sweeping.reserve("payment.charge:expiring-" + i, "t", "fp", Duration.ofMillis(1));
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> rows.countExpired() == 249);
            assertThat(sweeping.sweptInTheBackground()).as("no wake yet").isZero();

            String live = "payment.charge:live";
            sweeping.reserve(live, "t", "fp", Duration.ofMinutes(5));

            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> rows.countExpired() == 0);
            assertThat(sweeping.sweptInTheBackground()).isGreaterThanOrEqualTo(249);
            assertThat(rows.countRows(live)).isEqualTo(1);
        }
    }

    @Test
    void aRowWithAnUnknownStateIsRefusedAndTheActionDoesNotRun() {
        String key = UUID.randomUUID().toString();
        Fingerprint fingerprint = Fingerprint.ofFields(Map.of("amount", 10));
        table.plant("payment.charge:" + key, "refunded", null, fingerprint.hex(), "\"ch_1\"", null);
        assertNoRerun(key, fingerprint);
    }

    @Test
    void aCompletedRowWithNeitherResultNorReasonIsRefusedAndTheActionDoesNotRun() {
        String key = UUID.randomUUID().toString();
        Fingerprint fingerprint = Fingerprint.ofFields(Map.of("amount", 10));
        table.plant("payment.charge:" + key, "completed", null, fingerprint.hex(), null, null);
        assertNoRerun(key, fingerprint);
    }

    @Test
    void aPendingRowWithoutATokenIsRefusedAndTheActionDoesNotRun() {
        String key = UUID.randomUUID().toString();
        Fingerprint fingerprint = Fingerprint.ofFields(Map.of("amount", 10));
        table.plant("payment.charge:" + key, "pending", null, fingerprint.hex(), null, null);
        assertNoRerun(key, fingerprint);
    }

    @Test
    void aRowThatNeverExpiresIsRefusedNotFailedOpenOnEveryCall() {
        String key = UUID.randomUUID().toString();
        Fingerprint fingerprint = Fingerprint.ofFields(Map.of("amount", 10));
        table.plant("payment.charge:" + key, "completed", null, fingerprint.hex(), "\"ch_1\"", null);
        table.setExpiry("payment.charge:" + key, "'infinity'");
        assertNoRerun(key, fingerprint);
    }

    @Test
    void aTableOfAnOlderSchemaIsRefusedAtStartWithWhatToMigrate() {
        String oldTable = "old_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        table.createVersionOneTable(oldTable);
        assertThatThrownBy(() -> new PostgresIdempotencyStore(store.config().toBuilder().table(oldTable)
                .requireServerAtStart(false).build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("schema version 1").hasMessageContaining("ADD COLUMN fence");
    }

    @Test
    void aTableOfTheFormerSchemaIsUpgradedInPlaceKeepingItsRecords() throws Exception {
        String formerTable = "v2_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String kept = namespace();
        table.createVersionTwoTable(formerTable, kept, FP, "\"ch_1\"");
        try (PostgresIdempotencyStore upgraded = new PostgresIdempotencyStore(
                store.config().toBuilder().table(formerTable).build())) {
            assertThat(upgraded.lookup(kept)).contains(new Completed(FP, StoredResult.of("\"ch_1\"")));
            String ns = namespace();
            upgraded.reserve(ns, "t1", FP, LEASE);
            BlockingQueue<Ending> told = new LinkedBlockingQueue<>();
            upgraded.subscribe(namespace(), ending -> { }).close(); // listening, past the wake-up of a new connection
            try (var subscription = upgraded.subscribe(ns, told::add)) {
                upgraded.complete(ns, "t1", FP, StoredResult.of("\"ch_2\""), TTL);
                assertThat(told.poll(10, TimeUnit.SECONDS))
                        .isEqualTo(new Ending.Completed("t1", new Completed(FP, StoredResult.of("\"ch_2\""))));
            }
        }
    }

    @Test
    void onlyARecordAWaiterSubscribedToIsMarkedForNotification() {
        String unwatched = namespace();
        String watched = namespace();
        store.reserve(unwatched, "t1", FP, LEASE);
        store.reserve(watched, "t2", FP, LEASE);
        try (var subscription = store.subscribe(watched, ending -> { })) {
            assertThat(table.watched(watched)).isTrue();
            assertThat(table.watched(unwatched)).isFalse();
        }
    }

    @Test
    void aNotificationCarriesAnyKeyExactlyAndSaysUnknownWhenTheRecordDoesNotFitInAPayload() throws Exception {
        String oddKey = "payment.charge:\uD83D\uDCB3:\u00e9:1:2:" + UUID.randomUUID();
        String large = namespace();
        String largeJson = "\"" + "x".repeat(9000) + "\"";
        store.reserve(oddKey, "t1", FP, LEASE);
        store.reserve(large, "t2", FP, LEASE);
        BlockingQueue<Ending> toldOdd = new LinkedBlockingQueue<>();
        BlockingQueue<Ending> toldLarge = new LinkedBlockingQueue<>();
        store.subscribe(namespace(), ending -> { }).close(); // listening, past the wake-up of a new connection
        try (var a = store.subscribe(oddKey, toldOdd::add); var b = store.subscribe(large, toldLarge::add)) {
            store.complete(oddKey, "t1", FP, StoredResult.notStored("result of 70000 bytes: over the limit"), TTL);
            store.complete(large, "t2", FP, StoredResult.of(largeJson), TTL);
            assertThat(toldOdd.poll(10, TimeUnit.SECONDS)).isEqualTo(new Ending.Completed("t1",
                    new Completed(FP, StoredResult.notStored("result of 70000 bytes: over the limit"))));
            assertThat(toldLarge.poll(10, TimeUnit.SECONDS)).isEqualTo(Ending.UNKNOWN);
        }
        assertThat(((Completed) store.lookup(large).orElseThrow()).result().json()).isEqualTo(largeJson);
    }

    @Test
    void aReserveStalledOnAHeldLockIsCancelledByTheServerAndTheRetryReplaysTheFailOpenCharge() throws Exception {
        String key = UUID.randomUUID().toString();
        Fingerprint fingerprint = Fingerprint.ofFields(Map.of("amount", 10));
        IdempotentCall call = IdempotentCall.of("payment.charge", key, fingerprint);
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom().storePatience(Duration.ZERO).build()).build();
        AtomicInteger charges = new AtomicInteger();
        try (AutoCloseable lock = table.lockTable()) {
            // lock_timeout (below the socket timeout) cancels the reserve on the server: a stall, failed open.
            IdempotentResult<String> result = coordinator.call(call, ResultCodec.json(String.class),
                    () -> "ch_" + charges.incrementAndGet());
            assertThat(result.outcome()).isEqualTo(Outcome.FAILED_OPEN);
        }
        // The cancelled reserve never commits a reservation behind the caller's back; the caller's result
        // is written once the table is free, so the retry replays instead of charging again.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(store.lookup(call.namespace())).containsInstanceOf(Completed.class));
        assertThat(coordinator.execute(call, ResultCodec.json(String.class), () -> "ch_" + charges.incrementAndGet()))
                .isEqualTo("ch_1");
        assertThat(charges).hasValue(1);
        assertThat(coordinator.stats().storageErrors().get(StorePhase.RESERVE)).isEqualTo(1);
    }

    private void completed(String namespace, String json) {
        store.reserve(namespace, "t1", FP, LEASE);
        store.complete(namespace, "t1", FP, StoredResult.of(json), TTL);
    }

    private void assertNoRerun(String key, Fingerprint fingerprint) {
        for (InFlightPolicy policy : InFlightPolicy.values()) {
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.custom().policy(policy).build()).build();
            AtomicInteger charges = new AtomicInteger();
            assertThatThrownBy(() -> coordinator.execute(IdempotentCall.of("payment.charge", key, fingerprint),
                    ResultCodec.json(String.class), () -> "ch_" + charges.incrementAndGet()))
                    .as("policy %s", policy)
                    .isInstanceOf(IdempotencyRecordUnreadableException.class)
                    .hasMessageContaining("cannot read");
            assertThat(charges).as("charges under policy %s", policy).hasValue(0);
            assertThat(coordinator.stats().totalStorageErrors()).isZero();
        }
    }
}
