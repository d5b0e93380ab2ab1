package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.load.LoadKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A loss of replies on a PostgreSQL the lab started, as the nemesis plays it: the table is held while the
 * store's statements queue, the listener is told as the hold begins, then the replies are dropped and the
 * statements run. A reserve sent as it is told lands, and its caller hears nothing: it fails, "may have
 * landed". Its marker shows on the nemesis's own connections while the store's still wait on the lost
 * reply: here the loss outlasts the marker's lease, so a watch that read through the store's own
 * connections, as it did, could only ever find the key empty once they answered again.
 */
class RepliesLostOnABusyPostgresTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final int KEY = 11;

    private static PostgresBackend backend;

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ScheduledExecutorService launcher = Executors.newScheduledThreadPool(1);
    private final Callers callers = new Callers(threads, threads, new RejectingExecutor(threads), launcher,
            System.nanoTime());

    @BeforeAll
    static void startPostgres() {
        backend = PostgresBackend.open(ProvisioningOptions.defaults());
        // A server given by URL gets the proxy's faults only: no table held, no one told.
        Origin origin = backend.server().origin();
        assumeTrue(origin == Origin.BUNDLED || origin == Origin.SYSTEM, "needs a PostgreSQL the lab started");
    }

    @AfterAll
    static void stopPostgres() {
        backend.close();
    }

    @AfterEach
    void stopThreads() {
        launcher.shutdownNow();
        threads.shutdownNow();
    }

    @Test
    void aReserveSentAsRepliesAreLostLandsAndIsSeenWhileItsMarkerLasts() throws Exception {
        Set<CallRecord> ended = ConcurrentHashMap.newKeySet();
        CallRecord record = new CallRecord(0, KEY, 0, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN,
                Duration.ofSeconds(30).toNanos());
        IdempotentCall call = CoordinatorPath.callOf(KEY, LoadKeys.amount(KEY));
        CompletableFuture<Reservation> reserve = new CompletableFuture<>();
        try (PostgresTarget target = new PostgresTarget(backend);
             LandedReserves landed = new LandedReserves(target.store(), target.witness(), callers, LEASE,
                     FollowUpsOfALandedFailOpenTest.watcher(ended))) {
            target.whenRepliesAreLost(length -> threads.execute(() -> {
                try {
                    reserve.complete(LandedReserves.calling(record,
                            () -> landed.reserve(call.namespace(), "lost-token", call.fingerprint().hex(), LEASE)));
                } catch (Exception e) {
                    reserve.completeExceptionally(e);
                }
            }));

            target.inject(FaultKind.DROP_REPLIES, LEASE.plusMillis(500));

            assertThat(reserve).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(Exception.class)
                    .havingCause().isInstanceOfSatisfying(IdempotencyStoreException.class,
                            failure -> assertThat(failure.mayHaveLanded()).isTrue());
            await().atMost(Duration.ofSeconds(15)).until(() -> ended.contains(record));
            assertThat(record.reserveSeenAt()).as("the marker was seen under the call's token").isPositive();
            assertThat(record.reserveLandedUntil()).isGreaterThan(record.reserveSeenAt());
        }
    }
}
