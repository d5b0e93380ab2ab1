package dev.idemlab.idempotency.servlet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.idempotency.servlet.internal.StoredResponse;
import dev.idemlab.idempotency.servlet.internal.StoredResponseCodec;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stored response's record is read back by replays in other processes, other releases, and the
 * reactive filter: the streaming codec writes it character for character as the tree codec did, and
 * reads what the tree codec wrote (its code kept here as the reference) to the same response.
 */
class StoredResponseRecordsKeepTheirFormatTest {

    private static final StoredResponseCodec CODEC = new StoredResponseCodec();

    private static List<StoredResponse> responses() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Content-Type", List.of("application/json"));
        headers.put("Set-Cookie", List.of("a=1", "b=\"quoted\" \u00e9\t\\"));
        headers.put("X-Empty", List.of());
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        return List.of(
                new StoredResponse(201, headers, "{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8)),
                new StoredResponse(204, Map.of(), new byte[0]),
                new StoredResponse(422, Map.of("Location", List.of("/x")), binary));
    }

    @Test
    void theRecordIsWrittenAsTheTreeCodecWroteIt() {
        for (StoredResponse response : responses()) {
            assertThat(CODEC.encode(response)).isEqualTo(TreeCodec.encode(response));
        }
        assertThat(CODEC.encode(new StoredResponse(201, Map.of("Content-Type", List.of("application/json")),
                "hi".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("{\"status\":201,\"headers\":{\"Content-Type\":[\"application/json\"]},\"body\":\"aGk=\"}");
    }

    @Test
    void aRecordTheTreeCodecWroteReadsBackAlike() {
        for (StoredResponse response : responses()) {
            StoredResponse read = CODEC.decode(TreeCodec.encode(response));
            assertThat(read.status()).isEqualTo(response.status());
            assertThat(read.headers()).isEqualTo(response.headers());
            assertThat(read.body()).isEqualTo(response.body());
        }
        String odd = "{\"extra\":{\"a\":[1,2]},\"headers\":{\"N\":[1,true,null],\"S\":\"x\"},\"body\":\"\",\"status\":200}";
        StoredResponse read = CODEC.decode(odd);
        StoredResponse reference = TreeCodec.decode(odd);
        assertThat(read.status()).isEqualTo(reference.status());
        assertThat(read.headers()).isEqualTo(reference.headers());
    }

    @Test
    void whatIsNoResponseIsRefusedAsBefore() {
        assertThatThrownBy(() -> CODEC.decode("not json")).isInstanceOf(UncheckedIOException.class);
        for (String notAResponse : List.of("[]", "{}", "{\"status\":\"201\",\"headers\":{},\"body\":\"\"}",
                "{\"status\":201,\"headers\":[],\"body\":\"\"}", "{\"status\":201,\"headers\":{},\"body\":1}")) {
            assertThatThrownBy(() -> CODEC.decode(notAResponse)).as(notAResponse)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a response");
        }
    }

    /** The codec as it was before it streamed: the reference for the record's format. */
    private static final class TreeCodec {

        private static final ObjectMapper MAPPER = new ObjectMapper();

        static String encode(StoredResponse response) {
            ObjectNode json = MAPPER.createObjectNode();
            json.put("status", response.status());
            ObjectNode headers = json.putObject("headers");
            response.headers().forEach((name, values) -> {
                ArrayNode array = headers.putArray(name);
                values.forEach(array::add);
            });
            json.put("body", Base64.getEncoder().encodeToString(response.body()));
            try {
                return MAPPER.writeValueAsString(json);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        static StoredResponse decode(String stored) {
            JsonNode json;
            try {
                json = MAPPER.readTree(stored);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> fields = json.get("headers").fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                List<String> values = new ArrayList<>();
                field.getValue().forEach(value -> values.add(value.asText()));
                headers.put(field.getKey(), values);
            }
            return new StoredResponse(json.get("status").asInt(), headers,
                    Base64.getDecoder().decode(json.get("body").asText()));
        }
    }
}
