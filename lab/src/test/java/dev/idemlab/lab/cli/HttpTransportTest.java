package dev.idemlab.lab.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab scenario in-flight --transport http}: the post's first table through real HTTP against a
 * demo server behind the filter. The race is widened (an 800 ms provider, retries at 200 ms); nothing
 * here asserts a duration.
 */
class HttpTransportTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "run|responses=[ch_1, ch_1]|charges made=[ch_1, ch_2]",
            "wait|responses=[ch_1, ch_1]|charges made=[ch_1]",
            "raise|responses=[ch_1, 409]|charges made=[ch_1]"
    })
    void thePostsFirstTableOverHttp(String policy, String responses, String charges) {
        LabRun run = LabRun.of("scenario", "in-flight", "--transport", "http", "--policy", policy, "--store", "memory",
                "--latency-ms", "800", "--retry-at-ms", "200");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("policy=" + policy + " (").contains(responses).contains(charges)
                .contains("over HTTP: demo server at http://127.0.0.1:");
    }

    @Test
    void anUnknownTransportIsAUsageError() {
        LabRun run = LabRun.of("scenario", "in-flight", "--transport", "pigeon", "--store", "memory");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--transport must be in-process or http, got 'pigeon'").doesNotContain("\tat ");
    }
}
