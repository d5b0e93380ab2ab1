package dev.idemlab.idempotency.tck;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The store contract on the in-memory store, its ticker advanced instead of waiting. */
class InMemoryIdempotencyStoreTest extends IdempotencyStoreContract {

    private final ManualTicker ticker = new ManualTicker();
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(ticker);

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected void forceExpiry(String namespace) {
        // Every record in this store expires by the same ticker: move it past the longest ttl used.
        ticker.advance(TTL.plusSeconds(1));
    }

    @Override
    protected void elapse(Duration time) {
        ticker.advance(time);
    }

    @Test
    void sweepingDropsExpiredEntriesSoMemoryIsBoundedByLiveRecords() {
        for (int i = 0; i < 100; i++) {
            store.reserve("op:" + i, "t", FP, Duration.ofMinutes(1));
        }
        ticker.advance(Duration.ofMinutes(2));
        store.sweepExpired();
        assertThat(store.size()).isZero();
    }

    @Test
    void writesSweepExpiredEntriesAsTheyGoAtAConstantCostEach() {
        for (int i = 0; i < 100; i++) {
            store.reserve("old:" + i, "t", FP, Duration.ofMinutes(1));
            store.complete("old:" + i, "t", FP, StoredResult.of("1"), Duration.ofMinutes(1));
        }
        ticker.advance(Duration.ofMinutes(2));
        for (int i = 0; i < 100; i++) {
            store.reserve("new:" + i, "t", FP, Duration.ofSeconds(30));
        }
        assertThat(store.size()).isEqualTo(100);
    }
}
