package dev.idemlab.idempotency.store.memory;

import dev.idemlab.idempotency.FakeTicker;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreContract;
import dev.idemlab.idempotency.spi.StoredResult;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class InMemoryIdempotencyStoreTest extends IdempotencyStoreContract {

    private final FakeTicker ticker = new FakeTicker();
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

    @Test
    void sweepingDropsExpiredEntriesSoMemoryIsBoundedByLiveRecords() {
        for (int i = 0; i < 100; i++) {
            store.putIfAbsent("op:" + i, FP, StoredResult.of("1"), Duration.ofMinutes(1));
        }
        ticker.advance(Duration.ofMinutes(2));
        store.sweepExpired();
        assertThat(store.size()).isZero();
    }

    @Test
    void writesSweepExpiredEntriesAsTheyGoAtAConstantCostEach() {
        for (int i = 0; i < 100; i++) {
            store.putIfAbsent("old:" + i, FP, StoredResult.of("1"), Duration.ofMinutes(1));
        }
        ticker.advance(Duration.ofMinutes(2));
        for (int i = 0; i < 100; i++) {
            store.reserve("new:" + i, "t", FP, Duration.ofSeconds(30));
        }
        assertThat(store.size()).isEqualTo(100);
    }
}
