package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** RFC 8785's own test vectors: the number table of its Appendix B and the example of section 3.2.3. */
class CanonicalJsonTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "0000000000000000|0",
            "8000000000000000|0",
            "0000000000000001|5e-324",
            "8000000000000001|-5e-324",
            "7fefffffffffffff|1.7976931348623157e+308",
            "ffefffffffffffff|-1.7976931348623157e+308",
            "4340000000000000|9007199254740992",
            "c340000000000000|-9007199254740992",
            "4430000000000000|295147905179352830000",
            "44b52d02c7e14af5|9.999999999999997e+22",
            "44b52d02c7e14af6|1e+23",
            "44b52d02c7e14af7|1.0000000000000001e+23",
            "444b1ae4d6e2ef4e|999999999999999700000",
            "444b1ae4d6e2ef4f|999999999999999900000",
            "444b1ae4d6e2ef50|1e+21",
            "3eb0c6f7a0b5ed8c|9.999999999999997e-7",
            "3eb0c6f7a0b5ed8d|0.000001",
            "41b3de4355555553|333333333.3333332",
            "41b3de4355555554|333333333.33333325",
            "41b3de4355555555|333333333.3333333",
            "41b3de4355555556|333333333.3333334",
            "41b3de4355555557|333333333.33333343",
            "becbf647612f3696|-0.0000033333333333333333",
            "43143ff3c1cb0959|1424953923781206.2"
    })
    void numbersOfAppendixB(String ieeeHex, String expected) {
        double value = Double.longBitsToDouble(Long.parseUnsignedLong(ieeeHex, 16));
        assertThat(CanonicalJson.of(value)).isEqualTo(expected);
    }

    @Test
    void nanAndInfinityHaveNoForm() {
        assertThatThrownBy(() -> CanonicalJson.of(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.of(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theExampleOfSection323() throws Exception {
        String input = "{\"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],"
                + " \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\","
                + " \"literals\": [null, true, false]}";
        Object parsed = JacksonSupport.toPlain(new ObjectMapper().readTree(input));
        assertThat(CanonicalJson.write(parsed)).isEqualTo("{\"literals\":[null,true,false],"
                + "\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                + "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
    }

    @Test
    void integersBeyondTwoToTheFiftyThirdAreRefusedRatherThanRoundedIntoAnotherAmount() {
        long exact = 1L << 53;
        assertThat(CanonicalJson.write(List.of(exact))).isEqualTo("[9007199254740992]");
        assertThatThrownBy(() -> CanonicalJson.write(List.of(exact + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2^53");
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("amount", BigInteger.TEN.pow(30))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unpairedSurrogatesAreNotJson() {
        assertThatThrownBy(() -> CanonicalJson.write("key\uD800")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write("\uDC00x")).isInstanceOf(IllegalArgumentException.class);
        assertThat(CanonicalJson.write("\uD83D\uDCB3")).isEqualTo("\"\uD83D\uDCB3\"");
    }

    @Test
    void aFloatIsWrittenWithItsOwnShortestDigits() {
        assertThat(CanonicalJson.write(List.of(0.1f, 5.0f))).isEqualTo("[0.1,5]");
    }
}
