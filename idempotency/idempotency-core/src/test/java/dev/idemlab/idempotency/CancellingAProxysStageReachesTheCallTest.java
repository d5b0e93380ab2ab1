package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 39: the stage an asynchronous {@code @Idempotent} method returns was a {@code thenApply} of the
 * call's stage, so cancelling it never reached the call. A caller that cancelled while the method ran
 * was told {@code true} and the method charged anyway; one that cancelled while it waited for another
 * holder had its method run later, once the key was free (the nemesis through the proxy found both as
 * an action that started after its stage was cancelled). Now a cancel is the call's: refused once the
 * method runs, and when it wins the method never runs.
 */
class CancellingAProxysStageReachesTheCallTest {

    interface Payments {
        /** {@code caller} names who called, for the test's record of which call ran; it is not the request's. */
        @Idempotent(operation = "payment.charge", fingerprint = "amount")
        CompletableFuture<String> charge(@IdempotencyKey String key, long amount, String caller);
    }

    /** Each call's body: the first holds its key until the test completes its stage; later ones answer at once. */
    private static final class Bodies implements Payments {
        final List<String> ran = new CopyOnWriteArrayList<>();
        final CompletableFuture<String> first = new CompletableFuture<>();
        final CountDownLatch firstStarted = new CountDownLatch(1);

        @Override
        public CompletableFuture<String> charge(String key, long amount, String caller) {
            ran.add(caller);
            if (ran.size() == 1) {
                firstStarted.countDown();
                return first;
            }
            return CompletableFuture.completedFuture("ch_" + ran.size());
        }
    }

    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final Bodies bodies = new Bodies();
    private final Payments payments = Idempotency.proxy(Payments.class, bodies,
            IdempotencyCoordinator.builder(store).build());

    @AfterEach
    void release() {
        bodies.first.complete("ch_1");
        store.close();
    }

    @Test
    void aCancelOnceTheMethodRunsIsRefusedAndTheStageAnswersItsCharge() throws Exception {
        CompletableFuture<String> stage = payments.charge("k1", 10, "first");
        assertThat(bodies.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(stage.cancel(true)).as("the method runs: too late to cancel").isFalse();
        assertThat(stage.isCancelled()).isFalse();
        bodies.first.complete("ch_1");
        assertThat(stage.get(10, TimeUnit.SECONDS)).isEqualTo("ch_1");
    }

    @Test
    void aWaiterCancelledBeforeTheKeyIsFreeNeverRunsItsMethod() throws Exception {
        CompletableFuture<String> holder = payments.charge("k1", 10, "holder");
        assertThat(bodies.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<String> waiter = payments.charge("k1", 10, "waiter");

        assertThat(waiter.cancel(true)).as("waiting for the holder: the cancel wins").isTrue();
        assertThat(waiter.isCancelled()).isTrue();
        // The holder fails: its key is free again, and a waiter that was never cancelled would take it now.
        bodies.first.completeExceptionally(new IllegalStateException("provider down"));
        await().atMost(Duration.ofSeconds(10)).until(holder::isDone);
        // A waiter still waiting is woken by the release at once; the cancelled one stays away.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> bodies.ran.size() == 1);
        // A retry finds the key free and runs its own method: the cancelled waiter never took the key.
        assertThat(payments.charge("k1", 10, "retry").get(10, TimeUnit.SECONDS)).isEqualTo("ch_2");
        assertThat(bodies.ran).containsExactly("holder", "retry");
    }
}
