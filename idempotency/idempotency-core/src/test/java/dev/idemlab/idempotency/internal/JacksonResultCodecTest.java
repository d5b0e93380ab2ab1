package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The codec's own path for plain strings writes and reads exactly what Jackson does. */
class JacksonResultCodecTest {

    private final JacksonResultCodec<String> codec = new JacksonResultCodec<>(String.class);
    private final ObjectMapper jackson = JacksonSupport.mapper();

    @Test
    void aStringIsEncodedAsJacksonEncodesIt() throws Exception {
        for (String value : samples()) {
            assertThat(codec.encode(value)).as("encoding %s", value).isEqualTo(jackson.writeValueAsString(value));
        }
    }

    @Test
    void aStringIsDecodedAsJacksonDecodesIt() throws Exception {
        for (String value : samples()) {
            String json = jackson.writeValueAsString(value);
            assertThat(codec.decode(json)).as("decoding %s", json).isEqualTo(jackson.readValue(json, String.class));
        }
        assertThat(codec.decode("null")).isNull();
    }

    private static List<String> samples() {
        List<String> samples = new ArrayList<>(List.of("", "ch_1", "caf\u00e9", "\u20ac 12", "\ud83d\ude00",
                "\ud800 unpaired", "\u2028 separator", "a/b", "\u007f", "say \"hi\"", "back\\slash"));
        for (char c = 0; c < 0x80; c++) {
            samples.add("x" + c + "y");
        }
        return samples;
    }
}
