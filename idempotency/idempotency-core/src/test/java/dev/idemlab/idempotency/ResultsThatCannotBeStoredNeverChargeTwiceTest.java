package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Regressions of what a codec, a config or a failing complete did: a codec that returned null or
 * threw an Error left the key pending and every retry charged again, uncounted; a wait of a thousand
 * years passed validation and overflowed when the coordinator was built; a complete that never
 * landed counted three errors and no duplicate risk.
 */
class ResultsThatCannotBeStoredNeverChargeTwiceTest {

    private final FakeTicker ticker = new FakeTicker();
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(ticker);
    private final AtomicInteger charges = new AtomicInteger();
    private final IdempotentCall call = IdempotentCall.of("payment.charge", "order-42",
            Fingerprint.ofFields(Map.of("order_id", "42", "amount", 10)));

    private static ResultCodec<String> codec(java.util.function.Function<String, String> encode) {
        return new ResultCodec<>() {
            @Override
            public String encode(String result) {
                return encode.apply(result);
            }

            @Override
            public String decode(String json) {
                return json;
            }
        };
    }

    private void assertChargedOnceAndReplaysFailClearly(ResultCodec<String> codec) {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        assertThat(coordinator.execute(call, codec, () -> "ch_" + charges.incrementAndGet())).isEqualTo("ch_1");
        for (int retry = 0; retry < 2; retry++) {
            assertThatThrownBy(() -> coordinator.execute(call, codec, () -> "ch_" + charges.incrementAndGet()))
                    .isInstanceOf(IdempotentReplayUnavailableException.class);
        }
        assertThat(charges).hasValue(1);
        assertThat(coordinator.stats().resultsNotStored()).isEqualTo(1);
    }

    @Test
    void aCodecThatReturnsNull() {
        assertChargedOnceAndReplaysFailClearly(codec(result -> null));
    }

    @Test
    void aCodecThatThrowsAnErrorOnADeepObjectGraph() {
        assertChargedOnceAndReplaysFailClearly(codec(result -> {
            throw new StackOverflowError("a deep object graph");
        }));
    }

    @Test
    void aCodecThatThrowsACheckedExceptionSneakily() {
        assertChargedOnceAndReplaysFailClearly(codec(result -> {
            throw new AssertionError("anything a codec can throw");
        }));
    }

    @Test
    void aWaitOfAThousandYearsIsRefusedWhenTheConfigIsBuiltNamingTheRule() {
        assertThatThrownBy(() -> IdempotencyConfig.custom().waitTimeout(Duration.ofDays(365L * 1000)).build())
                .isInstanceOfSatisfying(InvalidIdempotencyConfigException.class,
                        e -> assertThat(e.getMessage()).contains("waitTimeout must be at most"));
        assertThatThrownBy(() -> IdempotencyConfig.custom().storePatience(Duration.ofDays(2)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class);
        assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ofSeconds(3))
                .heartbeatInterval(Duration.ofSeconds(2)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("below half the lease");
    }

    @Test
    void aCompleteThatNeverLandsCountsOneStorageErrorAndOneDuplicateRisk() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new ForwardingIdempotencyStore(store) {
            @Override
            public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                    Duration ttl) {
                throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.UNREACHABLE,
                        "connection reset", null);
            }
        }).ticker(ticker).build();
        assertThat(coordinator.execute(call, codec(result -> "\"" + result + "\""),
                () -> "ch_" + charges.incrementAndGet())).isEqualTo("ch_1");
        assertThat(coordinator.stats().storageErrors().get(StorePhase.COMPLETE)).isEqualTo(1);
        assertThat(coordinator.stats().duplicateRisk()).isEqualTo(1);
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }

    @Test
    void everyFailOpenIsCountedAsFailedOpenAndAsADuplicateRisk() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new UnreachableStore()).build();
        coordinator.execute(call, codec(result -> result), () -> "ch_" + charges.incrementAndGet());
        coordinator.execute(call, codec(result -> result), () -> "ch_" + charges.incrementAndGet());
        assertThat(coordinator.stats().count(Outcome.FAILED_OPEN)).isEqualTo(2);
        assertThat(coordinator.stats().duplicateRisk()).isEqualTo(2);
    }
}
