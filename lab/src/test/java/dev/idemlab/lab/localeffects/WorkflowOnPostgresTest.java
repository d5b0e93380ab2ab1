package dev.idemlab.lab.localeffects;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.provider.FakePaymentProvider;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
/**
 * Issue 27's recovery points on a real PostgreSQL: a workflow (create the order, charge it, mark it
 * paid, send the receipt) resumes after its last recovery point, its remote steps deduplicated by the
 * provider on a downstream key per step, and a holder taken over in any step is fenced.
 */
class WorkflowOnPostgresTest extends OrdersOnPostgres {

    @Test
    void aWorkflowThatCrashedAfterTheChargeResumesAndChargesOnce() throws Exception {
        String key = newKey();
        OrderWorkflow order = new OrderWorkflow(key);
        order.crashAfterMarkingPaid.set(true);

        assertThatThrownBy(() -> coordinator.execute(orderCall(key), PROGRESS, local.workflow(order.workflow)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("crashed");
        assertThat(recoveryPointsOf(key)).isEqualTo(2);
        assertThat(order.provider.chargeCount()).isEqualTo(1);
        assertThat(paidOrders(key)).isEmpty();

        IdempotentResult<Workflow.Progress> resumed = coordinator.call(orderCall(key), PROGRESS,
                local.workflow(order.workflow));
        assertThat(resumed.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).hasSize(1);
        assertThat(order.provider.chargeIds()).containsExactly(resumed.value().output("charge_created"));
        assertThat(paidOrders(key)).containsExactly(resumed.value().output("charge_created"));
        assertThat(order.receipts).containsExactly(resumed.value().output("order_created"));
        assertThat(recoveryPointsOf(key)).isZero();

        IdempotentResult<Workflow.Progress> replay = coordinator.call(orderCall(key), PROGRESS,
                local.workflow(order.workflow));
        assertThat(replay.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(replay.value()).isEqualTo(resumed.value());
        assertThat(order.provider.chargeCount()).isEqualTo(1);
        assertThat(order.receipts).hasSize(1);
    }

    @Test
    void aWorkflowHolderTakenOverInItsRemoteStepIsFencedAndRecordsNothingMore() throws Exception {
        String key = newKey();
        OrderWorkflow order = new OrderWorkflow(key);
        CountDownLatch charging = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicBoolean firstCharge = new AtomicBoolean(true);
        order.beforeCharging = () -> {
            if (firstCharge.getAndSet(false)) {
                charging.countDown();
                assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
        };
        IdempotencyCoordinator unrenewed = withDroppedRenewals();
        Future<Workflow.Progress> stale = holders.submit(() -> unrenewed.execute(orderCall(key), PROGRESS,
                local.workflow(order.workflow)));
        assertThat(charging.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitLeaseRanOut(orderCall(key));

        IdempotentResult<Workflow.Progress> taken = coordinator.call(orderCall(key), PROGRESS,
                local.workflow(order.workflow));
        assertThat(taken.outcome()).isEqualTo(Outcome.EXECUTED);
        resume.countDown();

        assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyFencedException.class);
        assertThat(ordersOf(key)).as("the new holder resumed after the stale one's order_created").hasSize(1);
        assertThat(order.provider.callCount()).as("the stale holder called out once it woke").isEqualTo(2);
        assertThat(order.provider.chargeIds()).as("on the step's downstream key: deduplicated")
                .containsExactly(taken.value().output("charge_created"));
        assertThat(paidOrders(key)).containsExactly(taken.value().output("charge_created"));
        assertThat(order.receipts).hasSize(1);
        assertThat(recoveryPointsOf(key)).isZero();
        assertThat(coordinator.call(orderCall(key), PROGRESS, local.workflow(order.workflow)).value())
                .isEqualTo(taken.value());
    }

    @Test
    void aWorkflowHolderTakenOverInsideALocalStepHasThatStepRolledBackAndIsFenced() throws Exception {
        String key = newKey();
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicBoolean firstRun = new AtomicBoolean(true);
        Workflow placeOrder = Workflow.builder().local("order_created", (connection, progress, context) -> {
            boolean stale = firstRun.getAndSet(false);
            long id = insertOrder(connection, key, stale ? "stale holder" : "new holder");
            if (stale) {
                inStep.countDown();
                assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
            return Long.toString(id);
        }).build();
        IdempotencyCoordinator unrenewed = withDroppedRenewals();
        Future<Workflow.Progress> stale = holders.submit(() -> unrenewed.execute(orderCall(key), PROGRESS,
                local.workflow(placeOrder)));
        assertThat(inStep.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitLeaseRanOut(orderCall(key));

        assertThat(coordinator.call(orderCall(key), PROGRESS, local.workflow(placeOrder)).outcome())
                .isEqualTo(Outcome.EXECUTED);
        resume.countDown();

        assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyFencedException.class);
        assertThat(ordersOf(key)).containsExactly("new holder");
        assertThat(recoveryPointsOf(key)).isZero();
    }

    /**
     * Regression: a local step's fence check locked the reservation's row for the whole step, so the
     * holder's own renewals (updates of that row) queued behind it, and a live holder in a step longer
     * than its lease lost the key by the server's clock. Five renewals that land while the step is
     * paused reach past the first lease and four more renewal intervals beyond the reserve.
     */
    @Test
    void aLiveHolderKeepsRenewingItsLeaseWhileALocalStepOfItsWorkflowRuns() throws Exception {
        String key = newKey();
        Semaphore renewalsLanded = new Semaphore(0);
        IdempotencyCoordinator renewed = IdempotencyCoordinator.builder(new ForwardingIdempotencyStore(store) {
            @Override
            public boolean renew(String namespace, String token, Duration lease) {
                boolean landed = super.renew(namespace, token, lease);
                if (landed) {
                    renewalsLanded.release();
                }
                return landed;
            }
        }).config(IdempotencyConfig.custom().lease(SHORT_LEASE).policy(InFlightPolicy.RAISE).build()).build();
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Workflow slowStep = Workflow.builder().local("order_created", (connection, progress, context) -> {
            long id = insertOrder(connection, key, "slow step");
            inStep.countDown();
            assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            return Long.toString(id);
        }).build();
        Future<Workflow.Progress> holder = holders.submit(() -> renewed.execute(orderCall(key), PROGRESS,
                local.workflow(slowStep)));
        try {
            assertThat(inStep.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            renewalsLanded.drainPermits();
            assertThat(renewalsLanded.tryAcquire(5, PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("the holder's renewals land while its step runs").isTrue();
            assertThatThrownBy(() -> renewed.execute(orderCall(key), PROGRESS, local.workflow(slowStep)))
                    .as("a retry finds the key still held, not free to take over")
                    .isInstanceOf(IdempotencyInProgressException.class);
        } finally {
            resume.countDown();
        }

        assertThat(holder.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).finished("order_created")).isTrue();
        assertThat(ordersOf(key)).containsExactly("slow step");
        assertThat(renewed.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }

    /**
     * The example: create the order (local), charge it (remote), mark it paid (local), send the
     * receipt (remote). Each piece a test may change is a field.
     */
    private final class OrderWorkflow {
        final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO)
                .deduplicateOnKey(true).build();
        final List<String> receipts = new CopyOnWriteArrayList<>();
        final AtomicBoolean crashAfterMarkingPaid = new AtomicBoolean();
        volatile Interruptible beforeCharging = () -> { };
        final Workflow workflow;

        OrderWorkflow(String key) {
            workflow = Workflow.builder()
                    .local("order_created", (connection, progress, context) ->
                            Long.toString(insertOrder(connection, key, "workflow")))
                    .remote("charge_created", (progress, downstreamKey, context) -> {
                        beforeCharging.run();
                        return provider.charge(progress.output("order_created"), 1_000, downstreamKey).id();
                    })
                    .local("order_paid", (connection, progress, context) -> {
                        markPaid(connection, progress.output("order_created"), progress.output("charge_created"));
                        if (crashAfterMarkingPaid.getAndSet(false)) {
                            throw new IllegalStateException("the holder crashed after marking the order paid");
                        }
                        return "paid";
                    })
                    .remote("receipt_sent", (progress, downstreamKey, context) -> {
                        receipts.add(progress.output("order_created"));
                        return "receipt-" + receipts.size();
                    })
                    .build();
        }
    }

    @FunctionalInterface
    private interface Interruptible {
        void run() throws InterruptedException;
    }
}
