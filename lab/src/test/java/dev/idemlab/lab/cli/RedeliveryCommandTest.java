package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code scenario redelivery}'s usage rules, checked before any broker starts or is reached. */
class RedeliveryCommandTest {

    @Test
    void aMalformedKafkaUrlIsAUsageErrorNamingTheForm() {
        LabRun run = LabRun.of("scenario", "redelivery", "--store", "memory", "--kafka-url", "kafka://broker-without-port");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--kafka-url").contains("kafka://host:port[,host:port]");
    }

    @Test
    void itsHelpNamesTheBrokerOptionAndItsEnvironmentVariable() {
        LabRun run = LabRun.of("scenario", "redelivery", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--kafka-url").contains("IDEMLAB_KAFKA_URL");
    }
}
