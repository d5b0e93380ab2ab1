package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder whose complete timed out retries it, and a retry that the store refuses may be finding the
 * first try, landed. It once took any completed record with its fingerprint and an equal result for
 * its own: when the first try had not landed and the lease ran out meanwhile, another attempt that
 * reserved, ran and completed with an equal result was credited to the stale holder, which reported
 * EXECUTED and was not counted stale. Now the record is its own only while its lease, by its own
 * clock, still lasts. The store's and the holder's clock is a fake ticker the test moves.
 */
class CompletionRetriesCreditOnlyTheirOwnRecordTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final ResultCodec<String> TEXT = ResultCodec.json(String.class);
    private static final IdempotentCall CALL = chargeCall("k1", 10);

    private final FakeTicker ticker = new FakeTicker();
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(ticker);
    private final AtomicInteger actions = new AtomicInteger();

    /** The holder's first complete times out, landed or not; {@code beforeRetry} runs as the retry reaches the store. */
    private final class FirstCompleteTimesOut extends ForwardingIdempotencyStore {
        private final boolean firstLands;
        private final Runnable beforeRetry;
        private final AtomicInteger completes = new AtomicInteger();

        FirstCompleteTimesOut(boolean firstLands, Runnable beforeRetry) {
            super(memory);
            this.firstLands = firstLands;
            this.beforeRetry = beforeRetry;
        }

        @Override
        public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
            if (completes.incrementAndGet() == 1) {
                if (firstLands) {
                    super.complete(namespace, token, fingerprint, result, ttl);
                }
                throw new IdempotencyStoreException("slow", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                        "complete timed out", null);
            }
            beforeRetry.run();
            return super.complete(namespace, token, fingerprint, result, ttl);
        }
    }

    private IdempotencyCoordinator coordinator(FirstCompleteTimesOut store) {
        return IdempotencyCoordinator.builder(store).ticker(ticker)
                .config(IdempotencyConfig.custom().lease(LEASE).build()).build();
    }

    private IdempotentResult<String> charge(IdempotencyCoordinator coordinator) {
        return coordinator.call(CALL, TEXT, () -> {
            actions.incrementAndGet();
            return "charged order-42";
        });
    }

    @Test
    void anEqualRecordAnotherAttemptWroteAfterTheLeaseRanOutLeavesTheHolderStale() {
        IdempotencyCoordinator other = IdempotencyCoordinator.builder(memory).ticker(ticker).build();
        AtomicInteger othersOutcomes = new AtomicInteger();
        IdempotencyCoordinator holder = coordinator(new FirstCompleteTimesOut(false, () -> {
            ticker.advance(LEASE.plusSeconds(1)); // the holder's retry comes after its lease ran out
            if (charge(other).outcome() == Outcome.EXECUTED) {
                othersOutcomes.incrementAndGet();
            }
        }));

        IdempotentResult<String> result = charge(holder);

        assertThat(othersOutcomes).as("another attempt took the expired key and ran").hasValue(1);
        assertThat(result.outcome()).isEqualTo(Outcome.LEASE_LOST);
        assertThat(holder.stats().stale()).isEqualTo(1);
        assertThat(holder.stats().count(Outcome.EXECUTED)).isZero();
        assertThat(actions).as("both ran: the stale holder must not claim the other's record").hasValue(2);
    }

    @Test
    void anEqualRecordFoundWhileTheLeaseLastsIsTheHoldersOwnLandedTry() {
        IdempotencyCoordinator holder = coordinator(new FirstCompleteTimesOut(true, () -> { }));

        IdempotentResult<String> result = charge(holder);

        assertThat(result.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(holder.stats().stale()).isZero();
        assertThat(charge(holder).outcome()).as("a retry replays the landed try").isEqualTo(Outcome.REPLAYED);
        assertThat(actions).hasValue(1);
    }
}
