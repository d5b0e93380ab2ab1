package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The failover command's usage rules, checked before any server starts. */
class FailoverCommandTest {

    @Test
    void aStoreWithoutNodesIsAUsageError() {
        LabRun run = LabRun.of("scenario", "failover", "--store", "memory");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("failover needs a Redis Cluster");
    }

    @Test
    void runsOutOfRangeAreAUsageError() {
        LabRun run = LabRun.of("scenario", "failover", "--runs", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--runs");
    }

    @Test
    void anUnknownVariantIsAUsageError() {
        LabRun run = LabRun.of("scenario", "failover", "--variant", "sometimes");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("without-wait, with-wait or both");
    }

    @Test
    void aMalformedClusterSeedIsAUsageErrorNamingTheForm() {
        LabRun run = LabRun.of("check", "--stores", "redis-cluster", "--redis-url", "redis-cluster://h1:7000,h2");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--redis-url").contains("redis-cluster://");
    }
}
