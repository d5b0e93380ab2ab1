package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A coordinator given an {@code ObservationRegistry} observes each call as {@code idempotency.call}
 * with its reserve, wait, action, complete and release as children, tagged with the operation, the
 * store and the outcome, and never with the key. Read from Micrometer's test registry, which keeps
 * every observation's context.
 */
class CallsAreObservedPhaseByPhaseTest {

    private static final String KEY = "key-7f3a9c";
    private static final ResultCodec<String> TEXT = ResultCodec.json(String.class);

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    private final Recorder recorder = new Recorder();
    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
            .config(IdempotencyConfig.custom().policy(InFlightPolicy.WAIT).waitTimeout(Duration.ofSeconds(30)).build())
            .observationRegistry(registry)
            .build();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    /**
     * Every context in the order its observation started, and those stopped: the test registry keeps
     * its own list to itself, so this handler sits beside its own.
     */
    private static final class Recorder implements ObservationHandler<Observation.Context> {
        final Queue<Observation.Context> started = new ConcurrentLinkedQueue<>();
        final Queue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();

        @Override
        public void onStart(Observation.Context context) {
            started.add(context);
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        boolean isStopped(Observation.Context context) {
            return stopped.stream().anyMatch(each -> each == context);
        }

        void clear() {
            started.clear();
            stopped.clear();
        }
    }

    CallsAreObservedPhaseByPhaseTest() {
        registry.observationConfig().observationHandler(recorder);
    }

    @AfterEach
    void stop() {
        callers.shutdownNow();
    }

    private static IdempotentCall charge(String key) {
        return IdempotentCall.of("payment.charge", key, Fingerprint.ofFields(Map.of("amount", 10)));
    }

    @Test
    void aFirstCallIsReservedActedAndCompletedUnderOneCallObservation() {
        String charged = coordinator.execute(charge(KEY), TEXT, () -> "ch_1");

        assertThat(charged).isEqualTo("ch_1");
        Observation.Context call = only("idempotency.call");
        assertThat(tags(call)).containsEntry("outcome", "executed").containsEntry("operation", "payment.charge")
                .containsEntry("store", "memory");
        assertThat(childrenOf(call)).containsExactly(
                "idempotency.reserve[acquired]", "idempotency.action[ok]", "idempotency.complete[stored]");
        assertAllStoppedAndKeyFree();
    }

    @Test
    void aReplayIsOneReserveThatFoundTheRecord() {
        coordinator.execute(charge(KEY), TEXT, () -> "ch_1");
        recorder.clear();

        IdempotentResult<String> replayed = coordinator.call(charge(KEY), TEXT, () -> "ch_2");

        assertThat(replayed.value()).isEqualTo("ch_1");
        Observation.Context call = only("idempotency.call");
        assertThat(tags(call)).containsEntry("outcome", "replayed");
        assertThat(childrenOf(call)).containsExactly("idempotency.reserve[found]");
        assertAllStoppedAndKeyFree();
    }

    @Test
    void aCallerThatFindsTheKeyInFlightIsObservedWaitingThenReplaying() throws Exception {
        CountDownLatch acting = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Future<String> holder = callers.submit(() -> coordinator.execute(charge(KEY), TEXT, () -> {
            acting.countDown();
            assertThat(finish.await(30, TimeUnit.SECONDS)).isTrue();
            return "ch_1";
        }));
        assertThat(acting.await(30, TimeUnit.SECONDS)).isTrue();
        Future<IdempotentResult<String>> waiter = callers.submit(
                () -> coordinator.call(charge(KEY), TEXT, () -> "ch_2"));
        await().atMost(Duration.ofSeconds(30)).until(() -> named("idempotency.wait").size() == 1);
        finish.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("ch_1");
        assertThat(waiter.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.WAITED);
        Observation.Context waited = named("idempotency.call").stream()
                .filter(call -> "waited".equals(tags(call).get("outcome"))).findFirst().orElseThrow();
        assertThat(childrenOf(waited)).containsExactly("idempotency.reserve[found]", "idempotency.wait[replayed]");
        assertAllStoppedAndKeyFree();
    }

    @Test
    void aFailedActionIsRecordedAsTheErrorAndItsReleaseObserved() {
        IllegalStateException declined = new IllegalStateException("card declined");

        assertThatThrownBy(() -> coordinator.execute(charge(KEY), TEXT, () -> {
            throw declined;
        })).isSameAs(declined);

        Observation.Context call = only("idempotency.call");
        assertThat(tags(call)).containsEntry("outcome", "action-failed");
        assertThat(call.getError()).isSameAs(declined);
        assertThat(childrenOf(call)).containsExactly(
                "idempotency.reserve[acquired]", "idempotency.action[failed]", "idempotency.release[released]");
        assertThat(only("idempotency.action").getError()).isSameAs(declined);
        assertThat(only("idempotency.release").getError()).isNull();
        assertAllStoppedAndKeyFree();
    }

    @Test
    void whatTheActionObservesItselfNestsUnderTheActionsObservation() {
        coordinator.execute(charge(KEY), TEXT,
                () -> Observation.createNotStarted("provider.charge", registry).observe(() -> "ch_1"));

        var parent = only("provider.charge").getParentObservation();
        assertThat(parent).isNotNull();
        assertThat(parent.getContextView().getName()).isEqualTo("idempotency.action");
    }

    @Test
    void aRefusalIsTaggedWithItsOutcomeAndNotRecordedAsAnErrorNamingTheKey() {
        coordinator.execute(charge(KEY), TEXT, () -> "ch_1");
        recorder.clear();

        assertThatThrownBy(() -> coordinator.execute(
                IdempotentCall.of("payment.charge", KEY, Fingerprint.ofFields(Map.of("amount", 99))), TEXT,
                () -> "ch_2")).isInstanceOf(IdempotencyKeyReuseException.class).hasMessageContaining(KEY);

        Observation.Context call = only("idempotency.call");
        assertThat(tags(call)).containsEntry("outcome", "key-reuse");
        assertThat(call.getError()).isNull();
        assertAllStoppedAndKeyFree();
    }

    /**
     * The servlet filter and the starter scope a key per client by appending {@code .c-} and 32 hex
     * digits to the operation: one operation per client, which the tag must not carry.
     */
    @Test
    void aClientsScopeIsLeftOutOfTheOperationTag() {
        String scoped = "payment.charge.c-0123456789abcdef0123456789abcdef";
        coordinator.execute(IdempotentCall.of(scoped, KEY, Fingerprint.ofFields(Map.of("amount", 10))), TEXT,
                () -> "ch_1");
        coordinator.execute(IdempotentCall.of("payment.charge.anon", "other-key", Fingerprint.ofFields(Map.of())),
                TEXT, () -> "ch_2");

        assertThat(recorder.started).extracting(each -> tags(each).get("operation")).containsOnly(
                "payment.charge", "payment.charge.anon");
        assertAllStoppedAndKeyFree();
    }

    @Test
    void anAsyncCallIsObservedAsTheBlockingOneIsUntilItsStageCompletes() throws Exception {
        IdempotentResult<String> charged = coordinator.callAsync(charge(KEY), TEXT, context -> "ch_1", callers)
                .toCompletableFuture().get(30, TimeUnit.SECONDS);

        assertThat(charged.value()).isEqualTo("ch_1");
        await().atMost(Duration.ofSeconds(30)).until(() -> recorder.isStopped(only("idempotency.call")));
        Observation.Context call = only("idempotency.call");
        assertThat(tags(call)).containsEntry("outcome", "executed");
        assertThat(childrenOf(call)).containsExactly(
                "idempotency.reserve[acquired]", "idempotency.action[ok]", "idempotency.complete[stored]");
        assertAllStoppedAndKeyFree();
    }

    @Test
    void anAsyncWaiterIsObservedWaitingAcrossItsTimersThenReplaying() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        Future<String> holder = holdTheKey(finish);
        CompletableFuture<IdempotentResult<String>> waiter = coordinator.callAsync(charge(KEY), TEXT,
                context -> "ch_2", callers).toCompletableFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> named("idempotency.wait").size() == 1);
        finish.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("ch_1");
        assertThat(waiter.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.WAITED);
        Observation.Context waited = await().atMost(Duration.ofSeconds(30)).until(() -> named("idempotency.call")
                .stream().filter(call -> "waited".equals(tags(call).get("outcome"))).findFirst(), Optional::isPresent)
                .orElseThrow();
        assertThat(childrenOf(waited)).containsExactly("idempotency.reserve[found]", "idempotency.wait[replayed]");
        assertAllStoppedAndKeyFree();
    }

    @Test
    void anAsyncWaiterCancelledWhileItWaitsEndsItsWaitAndItsCallAsCancelled() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        Future<String> holder = holdTheKey(finish);
        CompletableFuture<IdempotentResult<String>> waiter = coordinator.callAsync(charge(KEY), TEXT,
                context -> "ch_2", callers).toCompletableFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> named("idempotency.wait").size() == 1);

        assertThat(waiter.cancel(false)).isTrue();
        Observation.Context wait = only("idempotency.wait");
        await().atMost(Duration.ofSeconds(30)).until(() -> recorder.isStopped(wait));
        finish.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("ch_1");

        Observation.Context cancelled = named("idempotency.call").stream()
                .filter(call -> "cancelled".equals(tags(call).get("outcome"))).findFirst().orElseThrow();
        assertThat(cancelled.getError()).isNull();
        assertThat(childrenOf(cancelled)).containsExactly("idempotency.reserve[found]", "idempotency.wait[cancelled]");
        await().atMost(Duration.ofSeconds(30)).until(() -> recorder.started.stream().allMatch(recorder::isStopped));
        assertAllStoppedAndKeyFree();
    }

    /** A blocking call that holds the key, in its action, until {@code finish}; returns once it acts. */
    private Future<String> holdTheKey(CountDownLatch finish) throws InterruptedException {
        CountDownLatch acting = new CountDownLatch(1);
        Future<String> holder = callers.submit(() -> coordinator.execute(charge(KEY), TEXT, () -> {
            acting.countDown();
            assertThat(finish.await(30, TimeUnit.SECONDS)).isTrue();
            return "ch_1";
        }));
        assertThat(acting.await(30, TimeUnit.SECONDS)).isTrue();
        return holder;
    }

    private List<Observation.Context> named(String name) {
        return recorder.started.stream().filter(each -> name.equals(each.getName())).toList();
    }

    private Observation.Context only(String name) {
        List<Observation.Context> found = named(name);
        assertThat(found).as(name).hasSize(1);
        return found.get(0);
    }

    /** The children of {@code parent} in the order they started, each as {@code name[outcome]}. */
    private List<String> childrenOf(Observation.Context parent) {
        return recorder.started.stream()
                .filter(each -> each.getParentObservation() != null
                        && each.getParentObservation().getContextView() == parent)
                .map(each -> each.getName() + "[" + tags(each).get("outcome") + "]")
                .toList();
    }

    private static Map<String, String> tags(Observation.Context observed) {
        return StreamSupport.stream(observed.getLowCardinalityKeyValues().spliterator(), false)
                .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }

    /** Every observation ended, carries the three tags, and no tag of either cardinality holds the key. */
    private void assertAllStoppedAndKeyFree() {
        TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyRemainingCurrentObservation()
                .hasObservationWithNameEqualTo("idempotency.call").that().hasBeenStarted().hasBeenStopped();
        assertThat(recorder.started).isNotEmpty().allSatisfy(each -> {
            assertThat(recorder.isStopped(each)).as(each.getName() + " stopped").isTrue();
            assertThat(tags(each)).containsOnlyKeys("operation", "store", "outcome");
            assertThat(each.getAllKeyValues()).noneMatch(tag -> tag.getValue().contains(KEY));
            assertThat(String.valueOf(each.getContextualName())).doesNotContain(KEY);
        });
    }
}
