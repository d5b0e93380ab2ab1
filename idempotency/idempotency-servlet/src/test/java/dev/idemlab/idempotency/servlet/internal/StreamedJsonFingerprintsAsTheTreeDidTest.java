package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.idemlab.idempotency.Fingerprint;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JSON body is now read token by token into plain values instead of a Jackson tree: every body gets
 * the fingerprint it got through the tree (kept here as the reference, configured as the filter's was),
 * and a body the tree refused (not JSON, trailing tokens, a duplicate member) or the canonical form
 * refuses (an integer beyond 2^53, a number beyond a double) is still left to its bytes.
 */
class StreamedJsonFingerprintsAsTheTreeDidTest {

    private static final JsonMapper TREE = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    @ParameterizedTest
    @ValueSource(strings = {"{\"amount\":10}", "{ \"b\" : [1, 2.50, -0.0, 1e3, 1E-7], \"a\": {\"z\": null, \"y\": true} }",
        "", "   ", "null", "false", "\"text \\u00e9 \\ud83d\\ude00\"", "12345678901", "9007199254740993",
        "123456789012345678901234567890", "1.0", "5e0", "1e400", "[]", "{}", "[[[{\"k\":[\"v\"]}]]]",
        "{\"a\":1,\"a\":2}", "{\"a\":1} {\"b\":2}", "[1,2] 3", "{\"a\":", "not json", "{\"amount\":10,}",
        "{\"\\u0000\":\"\\ud800\"}"})
    void everyBodyGetsTheFingerprintTheTreeGaveIt(String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);

        assertThat(streamed(body)).as(text).isEqualTo(tree(body));
    }

    /** The fingerprint of the body as a field, or why there is none: not JSON, or not canonical. */
    private static String streamed(byte[] body) {
        Object json = RequestFingerprint.plainJson(body);
        return json == RequestFingerprint.NOT_JSON ? "not JSON" : fingerprint(json);
    }

    private static String tree(byte[] body) {
        Object json;
        try {
            json = TREE.readTree(body);
        } catch (java.io.IOException notJson) {
            return "not JSON";
        }
        return fingerprint(json);
    }

    private static String fingerprint(Object json) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("json_body", json);
        try {
            return Fingerprint.ofFields(fields).hex();
        } catch (IllegalArgumentException notCanonical) {
            return "not canonical";
        }
    }
}
