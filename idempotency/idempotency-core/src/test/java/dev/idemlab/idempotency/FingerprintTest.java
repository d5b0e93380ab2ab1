package dev.idemlab.idempotency;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.idemlab.idempotency.internal.CanonicalJson;
import dev.idemlab.idempotency.internal.JacksonSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FingerprintTest {

    record ChargeRequest(String order_id, long amount, String trace_id, String sent_at) { }

    /** Reads JSON text as a client's canonicalizer would see it; decimals keep their digits until written. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    private static String canonical(String json) throws Exception {
        return CanonicalJson.write(JacksonSupport.toPlain(JSON.readTree(json)));
    }

    @Test
    void memberOrderDoesNotMatter() {
        Map<String, Object> ab = new LinkedHashMap<>();
        ab.put("order_id", "o1");
        ab.put("amount", 10);
        Map<String, Object> ba = new LinkedHashMap<>();
        ba.put("amount", 10);
        ba.put("order_id", "o1");
        assertThat(Fingerprint.ofFields(ab)).isEqualTo(Fingerprint.ofFields(ba));
    }

    @Test
    void fiveAndFivePointZeroAreOneNumber() throws Exception {
        assertThat(Fingerprint.ofFields(Map.of("amount", 5))).isEqualTo(Fingerprint.ofFields(Map.of("amount", 5.0)));
        assertThat(canonical("{\"amount\":5.0}")).isEqualTo(canonical("{\"amount\":5}")).isEqualTo("{\"amount\":5}");
        assertThat(canonical("{\"amount\":5e0}")).isEqualTo("{\"amount\":5}");
    }

    @Test
    void differentAmountsDiffer() {
        assertThat(Fingerprint.ofFields(Map.of("amount", 5))).isNotEqualTo(Fingerprint.ofFields(Map.of("amount", 10)));
    }

    @Test
    void unnamedFieldsAreIgnored() {
        Fingerprint first = Fingerprint.ofNamed(new ChargeRequest("o1", 10, "trace-a", "12:00:00"), "order_id", "amount");
        Fingerprint retry = Fingerprint.ofNamed(new ChargeRequest("o1", 10, "trace-b", "12:00:03"), "order_id", "amount");
        Fingerprint other = Fingerprint.ofNamed(new ChargeRequest("o1", 5, "trace-b", "12:00:03"), "order_id", "amount");
        assertThat(first).isEqualTo(retry).isNotEqualTo(other);
    }

    /**
     * Issue 26: on a record whose component is {@code orderId}, naming {@code order_id} fingerprinted
     * null, so the same key with another order replayed the first order's charge. It is refused now.
     */
    @Test
    void aNameARecordDoesNotHaveIsRefusedNamingItsFields() {
        record Typed(String orderId, long amount) { }
        assertThatThrownBy(() -> Fingerprint.ofNamed(new Typed("o1", 10), "order_id", "amount"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names 'order_id'").hasMessageContaining("its fields are orderId, amount");
        assertThat(Fingerprint.ofNamed(new Typed(null, 10), "orderId", "amount"))
                .as("a field that is there and null is fine")
                .isEqualTo(Fingerprint.ofFields(new LinkedHashMap<>(Map.of("amount", 10)) {{
                    put("orderId", null);
                }}));
    }

    @Test
    void aNamedFieldAMapLacksCountsAsNull() {
        assertThat(Fingerprint.ofNamed(Map.of("amount", 10), "amount", "currency"))
                .isEqualTo(Fingerprint.ofFields(new LinkedHashMap<>(Map.of("amount", 10)) {{
                    put("currency", null);
                }}));
    }

    @Test
    void isSha256HexOfTheCanonicalForm() throws Exception {
        JsonNode node = JSON.readTree("{ \"order_id\" : \"o1\", \"amount\" : 5.00 }");
        assertThat(CanonicalJson.write(JacksonSupport.toPlain(node))).isEqualTo("{\"amount\":5,\"order_id\":\"o1\"}");
        assertThat(Fingerprint.ofJson(node).hex()).isEqualTo(sha256("{\"amount\":5,\"order_id\":\"o1\"}"));
    }

    private static String sha256(String text) throws Exception {
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(digest);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "0.0|0", "-0.0|0", "1.5|1.5", "100|100", "1e21|1e+21", "1e20|100000000000000000000",
            "0.000001|0.000001", "0.0000001|1e-7", "1.23456789012345678901234e23|1.2345678901234569e+23",
            "-12.50|-12.5", "1E-2|0.01"
    })
    void numbersTakeTheirEcmaScriptForm(String in, String out) throws Exception {
        assertThat(canonical("[" + in + "]")).isEqualTo("[" + out + "]");
    }

    @Test
    void stringsUseMinimalEscapesAndMembersSortByUtf16CodeUnits() throws Exception {
        assertThat(canonical("{\"b\":\"\\u0001\\n\\\"\\u00e9\",\"a\":[true,null,{}],\"\\u20ac\":1,\"\\ud83d\\ude00\":2}"))
                .isEqualTo("{\"a\":[true,null,{}],\"b\":\"\\u0001\\n\\\"\u00e9\",\"\u20ac\":1,\"\uD83D\uDE00\":2}");
    }

    @Test
    void nanHasNoFingerprint() {
        assertThatThrownBy(() -> Fingerprint.ofFields(Map.of("amount", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Fingerprint.ofFields(Map.of("items", List.of(1, 2))).hex()).hasSize(64);
    }
}
