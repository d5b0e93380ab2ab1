package dev.idemlab.provider.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServiceOptionsTest {

    @Test
    void the_defaults_are_an_ephemeral_port_the_posts_latency_and_no_options() {
        assertThat(ServiceOptions.parse()).isEqualTo(new ServiceOptions(0, 300, false, false, false));
    }

    @Test
    void every_option_in_both_forms() {
        assertThat(ServiceOptions.parse("--port", "8080", "--latency-ms", "0", "--dedupe", "--fence"))
                .isEqualTo(new ServiceOptions(8080, 0, true, true, false));
        assertThat(ServiceOptions.parse("--port=8081", "--latency-ms=50"))
                .isEqualTo(new ServiceOptions(8081, 50, false, false, false));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--verbose          | unknown option --verbose",
        "--port             | --port needs a value",
        "--port x           | --port must be a whole number 0 to 65535: x",
        "--port 65536       | --port must be a whole number 0 to 65535: 65536",
        "--latency-ms -1    | --latency-ms must be a whole number",
        "--dedupe=yes       | --dedupe takes no value",
    })
    void a_usage_error_states_the_rule(String line, String rule) {
        assertThatThrownBy(() -> ServiceOptions.parse(line.split(" ")))
                .isInstanceOf(ServiceOptions.UsageException.class).hasMessageContaining(rule);
    }

    @Test
    void a_usage_error_exits_2_with_one_line() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int exitCode = ProviderServiceMain.run(new String[] {"--port", "x"}, print(out), print(err));

        assertThat(exitCode).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8).lines()).singleElement().asString()
                .startsWith("provider: --port must be").contains(ServiceOptions.USAGE);
    }

    @Test
    void help_prints_the_usage_and_exits_0() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThat(ProviderServiceMain.run(new String[] {"--help"}, print(out), print(new ByteArrayOutputStream())))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(ServiceOptions.USAGE + System.lineSeparator());
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}
