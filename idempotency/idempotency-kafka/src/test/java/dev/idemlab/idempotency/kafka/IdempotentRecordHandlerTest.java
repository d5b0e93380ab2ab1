package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One record at a time through the handler (records built as the consumer builds them; the broker
 * tests deliver them for real): replays, keys and fingerprints, and the refusals of bad input,
 * each naming the record and the rule.
 */
class IdempotentRecordHandlerTest {

    private final AtomicInteger charges = new AtomicInteger();
    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();

    private IdempotentRecordHandler.Builder<String, Map<String, Object>, String> builder() {
        return IdempotentRecordHandler.builder(coordinator, "payment.charge", RedeliveryOnABrokerTest.ReturnedString.CODEC,
                (record, context) -> "ch_" + charges.incrementAndGet());
    }

    @Test
    void aRedeliveryAfterTheFirstHandlingCompletedIsAReplayThatDoesNotRunTheHandler() throws Exception {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder().fingerprintFields("order_id", "amount").build();
        assertThat(handler.handle(record(7, "order-42", Map.of("order_id", 42, "amount", 10, "sent_at", "t1"))))
                .isEqualTo(RecordOutcome.HANDLED);
        assertThat(handler.handle(record(7, "order-42", Map.of("order_id", 42, "amount", 10, "sent_at", "t2"))))
                .as("a field not named may differ").isEqualTo(RecordOutcome.REPLAYED);
        assertThat(charges).hasValue(1);
    }

    @Test
    void theSameKeyWithAnotherAmountIsRefusedAsKeyReuse() throws Exception {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder().fingerprintFields("order_id", "amount").build();
        handler.handle(record(1, "order-42", Map.of("order_id", 42, "amount", 10)));
        assertThatThrownBy(() -> handler.handle(record(2, "order-42", Map.of("order_id", 42, "amount", 5))))
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(charges).hasValue(1);
    }

    @Test
    void aRecordWithoutItsKeyIsRefusedNamingTheRecordAndTheRule() {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder().build();
        assertThatThrownBy(() -> handler.handle(record(17, null, Map.of("order_id", 42))))
                .isInstanceOfSatisfying(InvalidRecordException.class, e -> {
                    assertThat(e.topic()).isEqualTo("charges");
                    assertThat(e.partition()).isEqualTo(3);
                    assertThat(e.offset()).isEqualTo(17);
                    assertThat(e.rule()).contains("header 'Idempotency-Key'");
                })
                .hasMessageContaining("charges-3@17").hasMessageContaining("not acknowledged");
        assertThat(charges).hasValue(0);
    }

    @Test
    void aRecordWithoutAKeyRunsWithoutTheCoordinatorWhenNoneIsRequired() throws Exception {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder().keyRequired(false).build();
        assertThat(handler.handle(record(1, null, Map.of("order_id", 42)))).isEqualTo(RecordOutcome.BYPASSED);
        assertThat(handler.handle(record(1, null, Map.of("order_id", 42)))).isEqualTo(RecordOutcome.BYPASSED);
        assertThat(charges).hasValue(2);
    }

    @Test
    void aValueLackingANamedFieldIsRefusedNamingTheField() {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder()
                .fingerprintFields("order_id").valueReader(value -> new Order(42L)).build();
        assertThatThrownBy(() -> handler.handle(record(4, "k", Map.of())))
                .isInstanceOfSatisfying(InvalidRecordException.class, e -> assertThat(e.rule())
                        .contains("fields [order_id]").contains("does not have"));
        assertThat(charges).hasValue(0);
    }

    @Test
    void aValueTheReaderCannotReadIsRefused() {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder()
                .valueReader(value -> { throw new IllegalArgumentException("not JSON"); }).build();
        assertThatThrownBy(() -> handler.handle(record(4, "k", Map.of())))
                .isInstanceOfSatisfying(InvalidRecordException.class, e -> assertThat(e.rule())
                        .contains("cannot read the value").contains("not JSON"));
    }

    @Test
    void aKeyFromAFunctionOfTheRecord() throws Exception {
        IdempotentRecordHandler<String, Map<String, Object>, String> handler = builder()
                .key(record -> "order-" + record.value().get("order_id")).build();
        handler.handle(record(1, null, Map.of("order_id", 42)));
        assertThat(handler.handle(record(2, null, Map.of("order_id", 42)))).isEqualTo(RecordOutcome.REPLAYED);
        assertThat(charges).hasValue(1);
    }

    @Test
    void aRedeliveryPolicyTheCoordinatorCannotGiveIsRefusedAtBuild() {
        assertThatThrownBy(() -> builder().redelivery(RedeliveryPolicy.SKIP).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class)
                .hasMessageContaining("needs a coordinator under InFlightPolicy.RAISE");
        IdempotencyCoordinator raising = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
                .config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).build()).build();
        assertThat(IdempotentRecordHandler.builder(raising, "payment.charge", RedeliveryOnABrokerTest.ReturnedString.CODEC,
                (record, context) -> "x").build().redelivery()).isEqualTo(RedeliveryPolicy.SKIP);
    }

    @Test
    void autoCommitIsRefused() {
        assertThatThrownBy(() -> IdempotentConsumer.requireManualCommits(Map.of()))
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("enable.auto.commit=false");
        IdempotentConsumer.requireManualCommits(Map.of("enable.auto.commit", "false"));
    }

    record Order(long orderId) { }

    private static ConsumerRecord<String, Map<String, Object>> record(long offset, String key, Map<String, Object> value) {
        RecordHeaders headers = new RecordHeaders();
        if (key != null) {
            headers.add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
        }
        return new ConsumerRecord<>("charges", 3, offset, 0L, TimestampType.CREATE_TIME, -1, -1, null, value,
                headers, Optional.empty());
    }

}
