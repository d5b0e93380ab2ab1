package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab scenario in-flight --client stripe-java}: an unmodified Stripe Java SDK against the demo
 * server's Stripe-compatible route, whose own retry after its read timeout is the in-flight duplicate.
 * Its final answer is ch_1 under every policy; only the provider's ledger tells the result cache apart.
 * Nothing here asserts a duration.
 */
class StripeClientTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "run|charges made=[ch_1, ch_2]",
            "wait|charges made=[ch_1]",
            "raise|charges made=[ch_1]"
    })
    void theSdksOwnRetryIsTheDuplicate(String policy, String charges) {
        LabRun run = LabRun.of("scenario", "in-flight", "--client", "stripe-java", "--policy", policy,
                "--store", "memory");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("policy=" + policy + " (").contains("responses=[ch_1]").contains(charges)
                .contains("stripe-java 33.0.0 (read timeout 1000 ms, 4 network retries)")
                .contains("#2 at ").contains("(the SDK had timed out)");
    }

    @Test
    void underRaiseTheSdkRetriedThe409sUntilTheFirstCallWasDone() {
        LabRun run = LabRun.of("scenario", "in-flight", "--client", "stripe-java", "--policy", "raise",
                "--store", "memory");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("409 idempotency_key_in_use").contains("200 ch_1 (replayed)");
    }

    @Test
    void aReadTimeoutTheRetryCannotBeInFlightAfterIsAUsageErrorNamingTheRule() {
        LabRun run = LabRun.of("scenario", "in-flight", "--client", "stripe-java", "--latency-ms", "300",
                "--store", "memory");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--read-timeout-ms 1000 with --latency-ms 300")
                .contains("plus 500 ms is shorter than the provider's latency").doesNotContain("\tat ");
    }

    @Test
    void theSdkSetsItsOwnRetriesAndKey() {
        LabRun run = LabRun.of("scenario", "in-flight", "--client", "stripe-java", "--callers", "3", "--store", "memory");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--callers").contains("leave it out");
        LabRun readTimeoutAlone = LabRun.of("scenario", "in-flight", "--read-timeout-ms", "500", "--store", "memory");
        assertThat(readTimeoutAlone.exitCode()).isEqualTo(2);
        assertThat(readTimeoutAlone.err()).contains("it goes with --client stripe-java");
        LabRun unknown = LabRun.of("scenario", "in-flight", "--client", "curl", "--store", "memory");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("--client must be lab or stripe-java, got 'curl'");
    }
}
