package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A result too large to store is stored by reference and fetched whole on replay: one charge. */
class ReferenceCodecTest {

    private final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
    private final IdempotentCall call = IdempotentCall.of("payment.charge", "order-42",
            Fingerprint.ofFields(Map.of("order_id", "o\"1\\\n", "amount", 10)));
    /** A limit the charge's JSON is over, as a large receipt would be over 64 KiB. */
    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
            .config(IdempotencyConfig.custom().maxResultBytes(16).build()).build();

    @Test
    void withoutAReferenceTheReplayOfAResultOverTheLimitFailsClearly() {
        ResultCodec<Charge> whole = ResultCodec.json(Charge.class);
        coordinator.execute(call, whole, () -> provider.charge("o\"1\\\n", 10, null));
        assertThatThrownBy(() -> coordinator.execute(call, whole, () -> provider.charge("o\"1\\\n", 10, null)))
                .isInstanceOf(IdempotentReplayUnavailableException.class);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void byReferenceTheReplayFetchesTheWholeResultAndNothingIsChargedTwice() {
        ResultCodec<Charge> byReference = ReferenceCodec.of(Charge::id, id -> provider.findCharge(id).orElseThrow());
        Charge first = coordinator.execute(call, byReference, () -> provider.charge("o\"1\\\n", 10, null));
        IdempotentResult<Charge> replay = coordinator.call(call, byReference, () -> provider.charge("o\"1\\\n", 10, null));
        assertThat(replay.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(replay.value()).isEqualTo(first);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aReferenceWithCharactersJsonEscapesRoundTrips() {
        ReferenceCodec<String> codec = ReferenceCodec.of(s -> s, s -> s);
        String awkward = "a\"b\\c\nd\u0001e";
        assertThat(codec.decode(codec.encode(awkward))).isEqualTo(awkward);
    }
}
