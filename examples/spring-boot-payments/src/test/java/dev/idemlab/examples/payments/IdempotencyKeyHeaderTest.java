package dev.idemlab.examples.payments;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The key as draft-07 section 2.1 has it: one RFC 8941 String item, parameters ignored; anything else refused. */
class IdempotencyKeyHeaderTest {

    @Test
    void aStringItemIsTheKeyWithoutItsQuotesAndEscapes() {
        assertThat(IdempotencyKeyHeader.parse(List.of("\"8e03978e\""))).isEqualTo("8e03978e");
        assertThat(IdempotencyKeyHeader.parse(List.of(" \"a\\\"b\\\\c\";p=1 "))).isEqualTo("a\"b\\c");
        assertThat(IdempotencyKeyHeader.parse(List.of())).isNull();
    }

    @Test
    void anythingButOneStringItemIsRefusedNamingTheRule() {
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("8e03978e")))
                .isInstanceOf(InvalidChargeRequestException.class).hasMessageContaining("in double quotes");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("\"a\", \"b\"")))
                .hasMessageContaining("not a List");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("\"a\"", "\"a\"")))
                .hasMessageContaining("2 field lines");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("\"a")))
                .hasMessageContaining("no closing double quote");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("\"a\\b\"")))
                .hasMessageContaining("escapes only");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("\"\"")))
                .isInstanceOf(InvalidChargeRequestException.class)
                .satisfies(e -> assertThat(((InvalidChargeRequestException) e).title()).isEqualTo("Idempotency-Key is invalid"));
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("\"" + "k".repeat(256) + "\"")))
                .hasMessageContaining("255");
    }
}
