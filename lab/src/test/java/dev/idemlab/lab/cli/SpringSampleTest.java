package dev.idemlab.lab.cli;

import dev.idemlab.lab.http.SpringSampleJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab scenario in-flight --target spring-sample}: the post's first table through the Spring Boot
 * sample (examples/spring-boot-payments, built before the lab) in a child JVM, on the lab's private Redis
 * and PostgreSQL. The charges are the provider's ledger. The race is widened (an 800 ms provider, the
 * retry at 200 ms), so that a loaded machine still has the retry arrive while the first charge runs;
 * nothing here asserts a duration.
 */
class SpringSampleTest {

    // One store here: `lab check` runs the same three rows through the sample on Redis and on PostgreSQL.
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis"})
    void theResultCacheModeChargesTwiceAndTheReservationOnce(String store) {
        LabRun run = LabRun.of("scenario", "in-flight", "--target", "spring-sample", "--store", store,
                "--latency-ms", "800", "--retry-at-ms", "200");
        assertThat(run.exitCode()).as(run.err()).isZero();
        // Which of the two charges the cache keeps is a race (on a loaded machine the retry's charge can reach the
        // provider first); that both callers get one of them while the ledger holds two is not.
        assertThat(run.out())
                .containsPattern("policy=run \\(the sample's result-cache mode\\)   responses=\\[(ch_[12]), \\1\\]   "
                        + "charges made=\\[ch_1, ch_2\\]")
                .contains("policy=wait (the starter's reservation, wait)   responses=[ch_1, ch_1]   charges made=[ch_1]")
                .contains("policy=raise (the starter's reservation, 409)   responses=[ch_1, 409]   charges made=[ch_1]")
                .contains("the Spring Boot sample (child JVM, pid ").contains(" on " + store + ", charging the provider");
    }

    @Test
    void aStoreTheSampleCannotReachIsAUsageErrorNamingTheRule() {
        for (String store : new String[] {"memory", "redis-cluster"}) {
            LabRun run = LabRun.of("scenario", "in-flight", "--target", "spring-sample", "--store", store);
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).contains("--target spring-sample runs the sample in a child JVM on a single Redis or a "
                    + "PostgreSQL server: --store must be redis or postgres, got '" + store + "'").doesNotContain("\tat ");
        }
    }

    @Test
    void optionsTheSampleCannotTakeAreUsageErrors() {
        LabRun inProcess = LabRun.of("scenario", "in-flight", "--target", "spring-sample", "--store", "redis",
                "--transport", "in-process");
        assertThat(inProcess.exitCode()).isEqualTo(2);
        assertThat(inProcess.err()).contains("--target spring-sample is reached over HTTP");
        LabRun stripe = LabRun.of("scenario", "in-flight", "--target", "spring-sample", "--store", "redis",
                "--client", "stripe-java");
        assertThat(stripe.exitCode()).isEqualTo(2);
        assertThat(stripe.err()).contains("--target spring-sample is raced by the lab's own callers");
        LabRun unknown = LabRun.of("scenario", "in-flight", "--target", "nginx", "--store", "redis");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("--target must be lab or spring-sample, got 'nginx'");
    }

    @Test
    void withoutTheSampleJarTheRunSaysHowToBuildIt() {
        String before = System.getProperty(SpringSampleJar.PROPERTY);
        System.setProperty(SpringSampleJar.PROPERTY, "no-such-dir/spring-boot-payments.jar");
        try {
            LabRun run = LabRun.of("scenario", "in-flight", "--target", "spring-sample", "--store", "redis");
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).contains("no Spring sample jar at no-such-dir/spring-boot-payments.jar: build it with "
                    + "./mvnw -B -q package -DskipTests").doesNotContain("\tat ");
        } finally {
            if (before == null) {
                System.clearProperty(SpringSampleJar.PROPERTY);
            } else {
                System.setProperty(SpringSampleJar.PROPERTY, before);
            }
        }
    }
}
