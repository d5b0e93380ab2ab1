package dev.idemlab.idempotency;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdempotentCallTest {

    private static final Fingerprint FP = Fingerprint.ofFields(Map.of("amount", 10));

    @Test
    void aKeyOf255CharactersIsAcceptedAnd256IsNot() {
        assertThat(IdempotentCall.of("payment.charge", "k".repeat(255), FP).key()).hasSize(255);
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", "k".repeat(256), FP))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e.rule()).contains("1 to 255 Unicode code points, got 256");
                });
    }

    @Test
    void lengthIsCountedInCodePointsSo255EmojiAreAKeyAnd256AreNot() {
        String card = "\uD83D\uDCB3";
        assertThat(IdempotentCall.of("payment.charge", card.repeat(255), FP).key()).hasSize(510);
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", card.repeat(256), FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("got 256");
    }

    @Test
    void keysEndingInAnUnpairedSurrogateAreRefusedSoTheyCannotCollideInAStore() {
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", "order-1\uD800", FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", "order-1\uDBFF", FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", "\uDC00order", FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    @Test
    void aBlankKeyIsRefused() {
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", "   ", FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", "\u3000\u00a0", FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("blank");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "tab\there", "new\nline", "nul\u0000"})
    void emptyKeysAndControlCharactersAreRefused(String key) {
        assertThatThrownBy(() -> IdempotentCall.of("payment.charge", key, FP))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "payment:charge", "has space", "\u00e9t\u00e9"})
    void operationsMustBeSimpleNamesWithoutAColon(String operation) {
        assertThatThrownBy(() -> IdempotentCall.of(operation, "k", FP))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[A-Za-z0-9._-]{1,100}");
    }

    @Test
    void theNamespaceIsOperationColonKey() {
        assertThat(IdempotentCall.of("order.create", "k:1", FP).namespace()).isEqualTo("order.create:k:1");
    }

    @Test
    void configurationRulesAreCheckedWhenBuilt() {
        assertThatThrownBy(() -> IdempotencyConfig.custom().ttl(Duration.ofSeconds(59)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("ttl must be between");
        assertThatThrownBy(() -> IdempotencyConfig.custom().ttl(Duration.ofDays(31)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class);
        assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ofMinutes(2)).ttl(Duration.ofMinutes(2)).build())
                .isInstanceOfSatisfying(InvalidIdempotencyConfigException.class,
                        e -> assertThat(e.rule()).isEqualTo("lease must be shorter than ttl (PT2M)"));
        assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ZERO).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("lease must be positive");
        assertThatThrownBy(() -> IdempotencyConfig.custom().maxResultBytes(0).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class);
        assertThatThrownBy(() -> IdempotencyConfig.custom().waitTimeout(Duration.ofMillis(-1)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class);
    }

    @Test
    void theDefaultsAreThePostsAndTheWaitOutlastsTheLease() {
        IdempotencyConfig defaults = IdempotencyConfig.ofDefaults();
        assertThat(defaults.policy()).isEqualTo(InFlightPolicy.WAIT);
        assertThat(defaults.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.ttl()).isEqualTo(Duration.ofHours(24));
        assertThat(defaults.storeFailureMode()).isEqualTo(StoreFailureMode.FAIL_OPEN);
        assertThat(defaults.waitTimeout()).isGreaterThan(defaults.lease());
    }
}
