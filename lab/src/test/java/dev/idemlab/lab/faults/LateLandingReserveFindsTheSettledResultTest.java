package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static dev.idemlab.lab.faults.FaultRig.CHARGE;
import static dev.idemlab.lab.faults.FaultRig.call;
import static dev.idemlab.lab.faults.FaultRig.key;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a real PostgreSQL, whose store sends its calls over a pool of connections: a reserve whose caller
 * was told it timed out is still on its way (its connection held up) and lands only after the call
 * failed open, charged, and began settling its marker. The settle's complete runs on another connection,
 * before the reserve lands: it finds the key free and writes the call's completed record there (a
 * complete writes where the key is free or held by its token), so the late reserve finds that record
 * instead of leaving a marker to expire, and a retry replays. This is what lets the nemesis's checker
 * hold every store, not only a standalone Redis that keeps one connection in order, to "a fail-open
 * whose marker landed is settled once the store is calm" ({@code SettledFailOpens}). The wrapper only
 * delays the reserve's real call and answers its caller with the timeout a held-up connection gives (and
 * its patience retry with the connection gone); the store and its server are real.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LateLandingReserveFindsTheSettledResultTest {

    private PostgresBackend postgres;

    @BeforeAll
    void startServer() {
        postgres = (PostgresBackend) StoreBackends.open("postgres", ProvisioningOptions.defaults());
    }

    @AfterAll
    void stopServer() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aReserveThatLandsAfterTheSettlesCompleteFindsTheResultAndTheRetryReplays() throws Exception {
        try (IdempotencyStore real = postgres.openStore()) {
            IdempotentCall call = call(key(), 10);
            CountDownLatch settleTriedFirst = new CountDownLatch(1);
            AtomicBoolean delayed = new AtomicBoolean();
            AtomicReference<CompletableFuture<Reservation>> late = new AtomicReference<>();
            IdempotencyStore store = new ForwardingIdempotencyStore(real) {
                @Override
                public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                    if (!delayed.compareAndSet(false, true)) {
                        if (settleTriedFirst.getCount() > 0) { // the patience's retry: the connection is gone
                            throw new IdempotencyStoreException("postgres", namespace, Failure.UNREACHABLE,
                                    "the connection was closed", null);
                        }
                        return super.reserve(namespace, token, fingerprint, lease);
                    }
                    // Held up on its connection: it reaches the server once the settle has tried a complete.
                    late.set(CompletableFuture.supplyAsync(() -> {
                        await(settleTriedFirst);
                        return real.reserve(namespace, token, fingerprint, lease);
                    }));
                    throw new IdempotencyStoreException("postgres", namespace, Failure.TIMEOUT,
                            "the reply did not come within the timeout", null);
                }

                @Override
                public boolean complete(String namespace, String token, String fingerprint,
                                        dev.idemlab.idempotency.spi.StoredResult result, Duration ttl) {
                    boolean written = super.complete(namespace, token, fingerprint, result, ttl);
                    settleTriedFirst.countDown();
                    return written;
                }
            };
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.custom().lease(Duration.ofSeconds(5))
                            .storeFailureMode(StoreFailureMode.FAIL_OPEN).build())
                    .build();

            IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            assertThat(first.outcome()).isEqualTo(Outcome.FAILED_OPEN);
            Reservation lateReserve = late.get().get();

            assertThat(lateReserve).as("the held-up reserve, landing after the settle's complete").isInstanceOf(Reservation.Found.class);
            assertThat(((Reservation.Found) lateReserve).record()).isInstanceOf(IdempotencyRecord.Completed.class);
            IdempotentResult<Charge> retry = coordinator.call(call, CHARGE,
                    () -> provider.charge("o-1", 10, null));

            assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
            assertThat(retry.value().id()).isEqualTo(first.value().id());
            assertThat(provider.ledger()).as("the provider's ledger").hasSize(1);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
