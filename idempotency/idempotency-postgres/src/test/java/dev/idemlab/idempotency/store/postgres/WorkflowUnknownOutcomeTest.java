package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 42: a remote step that started and never reached its recovery point is settled by its policy, not
 * re-run blindly. Here the holder's charge lands and its answer is lost (the provider charges, then times
 * out), which leaves the step's started marker exactly as a holder killed after its call does (the lab
 * kills real holders, in child JVMs, at both sides of the call). The provider does NOT deduplicate on the
 * downstream key, so a blind re-run shows as a second charge. Every assertion reads what landed: the
 * ledger, the orders table and the markers.
 */
class WorkflowUnknownOutcomeTest extends UnknownOutcomeFixture {

    @Test
    void reRunWithTheDownstreamKeyChargesTwiceWhenTheProviderDoesNotDeduplicate() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.RERUN_WITH_DOWNSTREAM_KEY, 100);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThat(markers(shop.key)).containsExactly("charge_created=started");

        IdempotentResult<Workflow.Progress> retried = shop.place();

        assertThat(retried.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(shop.provider.ledger()).as("the default re-runs the step; this provider charges it again")
                .extracting(Charge::id).containsExactly("ch_1", "ch_2");
        assertThat(shop.provider.ledger().get(0).idempotencyKey()).isEqualTo(shop.provider.ledger().get(1).idempotencyKey());
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_2");
        assertThat(markers(shop.key)).isEmpty();
    }

    @Test
    void askFirstFindsTheChargeThatLandedAndChargesOnce() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.ASK_FIRST, 100);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        settle(shop.key);

        IdempotentResult<Workflow.Progress> retried = shop.place();

        assertThat(shop.lookups).as("asked once, by the step's downstream key")
                .containsExactly(shop.provider.ledger().get(0).idempotencyKey());
        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
        assertThat(retried.value().output("charge_created")).isEqualTo("ch_1");
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_1");
        assertThat(markers(shop.key)).isEmpty();
        assertThat(shop.place().outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void askFirstRunsTheStepWhenTheProviderHasNothingUnderItsKey() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.ASK_FIRST, 100);
        shop.provider.failNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThat(shop.provider.chargeIds()).isEmpty();
        settle(shop.key);

        IdempotentResult<Workflow.Progress> retried = shop.place();

        assertThat(shop.lookups).hasSize(1);
        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
        assertThat(retried.value().output("charge_created")).isEqualTo("ch_1");
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_1");
    }

    @Test
    void stopAnswersUnknownOutcomeToEveryRetryUntilResolvedAsDoneThenResumesAfterTheStep() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);

        for (int retry = 0; retry < 2; retry++) {
            assertThatThrownBy(shop::place).isInstanceOfSatisfying(StepOutcomeUnknownException.class, e -> {
                assertThat(e.phase()).isEqualTo("charge_created");
                assertThat(e.key()).isEqualTo(shop.key);
                assertThat(e.httpStatus()).isEqualTo(500);
                assertThat(e.getMessage()).contains("unknown outcome at step charge_created");
            });
        }
        assertThat(shop.provider.chargeIds()).as("no retry charged").containsExactly("ch_1");
        assertThat(markers(shop.key)).containsExactly("charge_created=unknown");
        assertThat(ordersOf(shop.key)).containsExactly("created null");
        assertThatThrownBy(() -> shop.place(500)).as("the key stays the stopped request's")
                .isInstanceOf(IdempotencyKeyReuseException.class);

        UnknownOutcomes unknown = UnknownOutcomes.of(store);
        List<UnknownOutcomes.Stopped> stopped = unknown.list(100).stream()
                .filter(s -> s.key().equals(shop.key)).toList();
        assertThat(stopped).singleElement().satisfies(s -> {
            assertThat(s.operation()).isEqualTo("order.place");
            assertThat(s.phase()).isEqualTo("charge_created");
            assertThat(s.downstreamKey()).as("what the operator looks the charge up by")
                    .isEqualTo(shop.provider.ledger().get(0).idempotencyKey());
        });
        String found = shop.provider.chargesWithKey(stopped.get(0).downstreamKey()).get(0).id();
        assertThat(unknown.resolveAsDone("order.place", shop.key, "charge_created", found)).isTrue();
        assertThat(unknown.resolveAsDone("order.place", shop.key, "charge_created", found)).as("once").isFalse();

        IdempotentResult<Workflow.Progress> resumed = shop.place();

        assertThat(resumed.value().output("charge_created")).isEqualTo("ch_1");
        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_1");
        assertThat(markers(shop.key)).isEmpty();
    }

    @Test
    void stopResolvedAsNotDoneRunsTheStepOnTheNextRetry() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.failNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(shop::place).isInstanceOf(StepOutcomeUnknownException.class);
        assertThat(shop.provider.chargeIds()).isEmpty();
        settle(shop.key);

        assertThat(UnknownOutcomes.of(store).resolveAsNotDone("order.place", shop.key, "charge_created")).isTrue();
        IdempotentResult<Workflow.Progress> retried = shop.place();

        assertThat(retried.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_1");
    }

    @Test
    void aFinishedStepLeavesNoMarkerAndAStartedOneOfAStepThatReRunsIsBoundToItsRequest() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        assertThat(shop.place().outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(markers(shop.key)).isEmpty();

        Shop other = new Shop(IfOutcomeUnknown.RERUN_WITH_DOWNSTREAM_KEY, 100);
        other.provider.failNextCalls(1);
        assertThatThrownBy(other::place).isInstanceOf(ProviderTimeoutException.class);
        assertThat(markers(other.key)).containsExactly("charge_created=started");
        // Another body on the key after the first request failed and released it: not that request's step.
        IdempotentResult<Workflow.Progress> placed = other.place(500);
        assertThat(placed.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(other.provider.ledger()).extracting(Charge::amount).containsExactly(500L);
        assertThat(markers(other.key)).isEmpty();
    }

    /**
     * A started STOP step may have charged: another body on the key must not delete its marker (nothing
     * would ever list the charge), it gets the key-reuse refusal, as against a kept stop.
     */
    @Test
    void anotherBodyOnTheKeyKeepsAStartedStopStepsMarkerAndIsRefused() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);

        assertThatThrownBy(() -> shop.place(500)).isInstanceOf(IdempotencyKeyReuseException.class);

        assertThat(shop.provider.ledger()).extracting(Charge::amount).containsExactly(100L);
        assertThat(markers(shop.key)).containsExactly("charge_created=started");
        assertThat(ordersOf(shop.key)).containsExactly("created null");
        assertThat(UnknownOutcomes.of(store).list(100)).as("its holder's lease is over: listed for the operator")
                .filteredOn(s -> s.key().equals(shop.key)).singleElement()
                .satisfies(s -> assertThat(s.downstreamKey()).isEqualTo(shop.provider.ledger().get(0).idempotencyKey()));
    }

    /**
     * The started marker is fenced like a recovery point: a holder whose reservation is gone (its key taken
     * over) writes no marker and never calls out.
     */
    @Test
    void aHolderWhoseKeyWasTakenOverNeitherMarksItsStepStartedNorCallsOut() throws Exception {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        String key = "order-" + UUID.randomUUID();
        Workflow chargeOnly = Workflow.builder().remote("charge_created", IfOutcomeUnknown.STOP,
                (progress, downstreamKey, context) -> provider.charge("order-1", 100, downstreamKey).id()).build();
        String fingerprint = Fingerprint.ofFields(Map.of("amount", 100)).hex();
        long first = ((Reservation.Acquired) store.reserve("order.place:" + key, "holder-a", fingerprint,
                Duration.ofSeconds(30))).fence();
        update("UPDATE " + store.config().table() + " SET expires_at = now() - interval '1 second' "
                + "WHERE namespace = ?", key);
        long second = ((Reservation.Acquired) store.reserve("order.place:" + key, "holder-b", fingerprint,
                Duration.ofSeconds(30))).fence();
        assertThat(second).as("taken over").isGreaterThan(first);
        IdempotencyContext stale = new IdempotencyContext("order.place", key, first, "idem_0123", fingerprint);

        assertThatThrownBy(() -> new WorkflowRun(store, chargeOnly, true, WorkflowRun.onPool(store)).run(stale))
                .isInstanceOf(IdempotencyFencedException.class);
        assertThat(provider.callCount()).isZero();
        assertThat(markers(key)).isEmpty();
        IdempotencyContext current = new IdempotencyContext("order.place", key, second, "idem_0123", fingerprint);
        assertThat(new WorkflowRun(store, chargeOnly, true, WorkflowRun.onPool(store)).run(current).output("charge_created")).isEqualTo("ch_1");
        assertThat(provider.callCount()).as("the holder of the key calls out").isEqualTo(1);
    }

    /**
     * A started marker nobody resumes goes with the sweep, unless its step stops: then it may have charged,
     * and the sweep turns it into a stop (listed, answering every retry) with its request's recovery points
     * kept, instead of deleting it.
     */
    @Test
    void theSweepTurnsAnExpiredStartedStopMarkerIntoAStopAndDeletesOtherExpiredMarkers() throws Exception {
        Shop rerun = new Shop(IfOutcomeUnknown.RERUN_WITH_DOWNSTREAM_KEY, 100);
        rerun.provider.failNextCalls(1);
        assertThatThrownBy(rerun::place).isInstanceOf(ProviderTimeoutException.class);
        Shop started = new Shop(IfOutcomeUnknown.STOP, 100);
        started.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(started::place).isInstanceOf(ProviderTimeoutException.class);
        Shop stopped = new Shop(IfOutcomeUnknown.STOP, 100);
        stopped.provider.failNextCalls(1);
        assertThatThrownBy(stopped::place).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(stopped::place).isInstanceOf(StepOutcomeUnknownException.class);
        for (Shop shop : List.of(rerun, started, stopped)) {
            dayTwo(shop.key);
        }

        store.sweepExpired();

        assertThat(markers(rerun.key)).isEmpty();
        assertThat(markers(started.key)).containsExactly("charge_created=unknown");
        assertThat(markers(stopped.key)).containsExactly("charge_created=unknown");
        assertThat(UnknownOutcomes.of(store).list(100)).extracting(UnknownOutcomes.Stopped::key)
                .contains(started.key, stopped.key).doesNotContain(rerun.key);
        assertThatThrownBy(started::place).isInstanceOf(StepOutcomeUnknownException.class);
        assertThat(UnknownOutcomes.of(store).resolveAsDone("order.place", started.key, "charge_created", "ch_1"))
                .isTrue();
        assertThat(started.place().value().output("charge_created")).isEqualTo("ch_1");
        assertThat(ordersOf(started.key)).as("resumed after the order its holder created").containsExactly("paid ch_1");
        assertThat(started.provider.chargeIds()).containsExactly("ch_1");
    }

    /**
     * Day 2: a stop resolved after the recovery points' ttl still resumes after them (they are pinned with
     * the stop), rather than insert a second order beside the one its charge paid for.
     */
    @Test
    void aStopResolvedAfterTheRecoveryPointsTtlResumesWithTheOneOrder() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(shop::place).isInstanceOf(StepOutcomeUnknownException.class);
        dayTwo(shop.key);
        store.sweepExpired();

        assertThat(UnknownOutcomes.of(store).resolveAsDone("order.place", shop.key, "charge_created", "ch_1")).isTrue();
        IdempotentResult<Workflow.Progress> resumed = shop.place();

        assertThat(resumed.value().output("charge_created")).isEqualTo("ch_1");
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_1");
        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
        assertThat(strings("SELECT count(*)::text FROM " + store.config().table() + "_steps WHERE namespace = ? AND "
                + "NOT isfinite(expires_at)", store.keyOf("order.place:" + shop.key)))
                .as("resolved, the points are kept for their ttl again, not forever").containsExactly("0");
    }

    @Test
    void aVersionFourTableGetsTheStartedMarkersTableWhenTheStoreOpensIt() throws Exception {
        String v4 = "v4_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        new PostgresIdempotencyStore(store.config().toBuilder().table(v4).build()).close();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + v4 + "_step_starts");
            statement.execute("COMMENT ON TABLE " + v4 + " IS 'idempotency records, schema version 4'");
        }
        try (PostgresIdempotencyStore upgraded = new PostgresIdempotencyStore(
                store.config().toBuilder().table(v4).build())) {
            assertThat(strings("SELECT obj_description(to_regclass(?), 'pg_class')", v4))
                    .containsExactly(SchemaScript.VERSION_COMMENT).containsExactly("idempotency records, schema version 5");
            assertThat(strings("SELECT to_regclass(?)::text", v4 + "_step_starts")).containsExactly(v4 + "_step_starts");
            assertThat(UnknownOutcomes.of(upgraded).list(10)).isEmpty();
        }
    }
}
