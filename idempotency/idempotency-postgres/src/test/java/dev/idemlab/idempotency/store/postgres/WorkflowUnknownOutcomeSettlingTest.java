package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ProviderTimeoutException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 42, when a step of unknown outcome may be settled and by whom: not while the holder that marked it
 * may still have a call on its way (its lease and the step's provider deadline), never on a step number a
 * later deploy gave another step, and never by a decision taken about an older stop. The marker's age is
 * set in the database, not waited for.
 */
class WorkflowUnknownOutcomeSettlingTest extends UnknownOutcomeFixture {

    /**
     * A holder paused (not dead) after its marker may still charge: a retry that asked now would hear "not
     * found" and charge too. It answers in progress instead, and asks once the marker is old enough.
     */
    @Test
    void askFirstAnswersInProgressWhileTheMarkersHolderMayStillCall() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.ASK_FIRST, 100);
        shop.provider.failNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);

        assertThatThrownBy(shop::place).isInstanceOfSatisfying(IdempotencyInProgressException.class,
                e -> assertThat(e.httpStatus()).isEqualTo(409));

        assertThat(shop.lookups).as("not asked yet").isEmpty();
        assertThat(shop.provider.callCount()).as("no second call").isEqualTo(1);
        assertThat(markers(shop.key)).containsExactly("charge_created=started");
        settle(shop.key);
        assertThat(shop.place().value().output("charge_created")).isEqualTo("ch_1");
        assertThat(shop.lookups).hasSize(1);
        assertThat(ordersOf(shop.key)).containsExactly("paid ch_1");
    }

    @Test
    void resolvingAsNotDoneIsRefusedWhileTheMarkersHolderMayStillCall() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.failNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(shop::place).isInstanceOf(StepOutcomeUnknownException.class);
        UnknownOutcomes unknown = UnknownOutcomes.of(store);

        assertThatThrownBy(() -> unknown.resolveAsNotDone("order.place", shop.key, "charge_created"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("provider deadline")
                .hasMessageContaining("cannot be resolved as not done before");

        assertThat(markers(shop.key)).containsExactly("charge_created=unknown");
        settle(shop.key);
        assertThat(unknown.resolveAsNotDone("order.place", shop.key, "charge_created")).isTrue();
    }

    /**
     * A deploy that inserts a step before the charge moves the charge's step number: its marker still
     * belongs to the charge, so the retry stops there rather than re-run the new step and charge again.
     */
    @Test
    void aDeployThatInsertsAStepKeepsTheStopMarkerOnItsPhase() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        Workflow.RemoteStep charge = (progress, downstreamKey, context) -> shop.provider.charge(
                progress.output("order_created"), 100, downstreamKey).id();
        Workflow inserted = Workflow.builder()
                .local("order_created", (connection, progress, context) -> "never run")
                .remote("fraud_checked", (progress, downstreamKey, context) -> "clear")
                .remote("charge_created", IfOutcomeUnknown.STOP, charge)
                .local("order_paid", (connection, progress, context) -> "never run")
                .build();

        assertThatThrownBy(() -> shop.place(inserted)).isInstanceOfSatisfying(StepOutcomeUnknownException.class,
                e -> assertThat(e.phase()).isEqualTo("charge_created"));

        assertThat(shop.provider.chargeIds()).containsExactly("ch_1");
        assertThat(markers(shop.key)).contains("charge_created=unknown");
    }

    /** A decision about a stop that was since resolved and stopped again cannot settle the newer stop. */
    @Test
    void aStaleDecisionDoesNotSettleANewerStop() throws Exception {
        Shop shop = new Shop(IfOutcomeUnknown.STOP, 100);
        shop.provider.failNextCalls(2);
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(shop::place).isInstanceOf(StepOutcomeUnknownException.class);
        UnknownOutcomes unknown = UnknownOutcomes.of(store);
        UnknownOutcomes.Stopped first = stopOf(unknown, shop);
        settle(shop.key);
        assertThat(unknown.resolveAsNotDone(first)).isTrue();
        assertThatThrownBy(shop::place).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(shop::place).isInstanceOf(StepOutcomeUnknownException.class);

        assertThat(unknown.resolveAsDone(first, "ch_stale")).as("another holder's start: not that stop").isFalse();

        assertThat(markers(shop.key)).containsExactly("charge_created=unknown");
        UnknownOutcomes.Stopped second = stopOf(unknown, shop);
        assertThat(second.fence()).isNotEqualTo(first.fence());
        assertThat(shop.provider.ledger()).extracting(Charge::id).isEmpty();
        settle(shop.key);
        assertThat(unknown.resolveAsNotDone(second)).isTrue();
        assertThat(shop.place().value().output("charge_created")).isEqualTo("ch_1");
    }

    private static UnknownOutcomes.Stopped stopOf(UnknownOutcomes unknown, Shop shop) {
        List<UnknownOutcomes.Stopped> stopped = unknown.list(1000).stream().filter(s -> s.key().equals(shop.key))
                .toList();
        assertThat(stopped).hasSize(1);
        return stopped.get(0);
    }
}
