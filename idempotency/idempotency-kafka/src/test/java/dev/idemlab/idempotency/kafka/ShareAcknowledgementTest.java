package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A share consumer accepts only what was handled or replayed, releases what is in flight or failed, rejects poison. */
class ShareAcknowledgementTest {

    @ParameterizedTest
    @EnumSource(RecordOutcome.class)
    void onlyAnAcknowledgingOutcomeIsAccepted(RecordOutcome outcome) {
        assertThat(ShareAcknowledgement.of(outcome))
                .isEqualTo(outcome == RecordOutcome.IN_FLIGHT ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
    }

    @Test
    void aHandlerThatThrewIsReleasedSoThatTheNextDeliveryRunsItAgain() {
        assertThat(ShareAcknowledgement.ofFailure(new IllegalStateException("provider down")))
                .isEqualTo(AcknowledgeType.RELEASE);
    }

    @Test
    void aRecordAlreadyHandledWhoseResultCannotBeReplayedIsAcceptedNotReleasedUntilArchived() {
        assertThat(ShareAcknowledgement.ofFailure(new dev.idemlab.idempotency.IdempotentReplayUnavailableException(
                "payment.charge", "order-42", "the stored result cannot be read", null))).isEqualTo(AcknowledgeType.ACCEPT);
    }

    @Test
    void aRecordNoDeliveryCanHandleIsRejected() {
        assertThat(ShareAcknowledgement.ofFailure(new InvalidRecordException("payment.charge", null, "charges", 0, 7,
                "it carries no idempotency key", null))).isEqualTo(AcknowledgeType.REJECT);
        String stored = Fingerprint.ofFields(Map.of("amount", 10)).hex();
        String asked = Fingerprint.ofFields(Map.of("amount", 5)).hex();
        assertThat(ShareAcknowledgement.ofFailure(new IdempotencyKeyReuseException("payment.charge", "order-42",
                stored, asked, false))).isEqualTo(AcknowledgeType.REJECT);
    }
}
