package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code scenario redelivery}'s, {@code redelivery-crash}'s and {@code share-lock-expiry}'s usage rules, checked before any broker starts or is reached. */
class RedeliveryCommandTest {

    @Test
    void aMalformedKafkaUrlIsAUsageErrorNamingTheForm() {
        LabRun run = LabRun.of("scenario", "redelivery", "--store", "memory", "--kafka-url", "kafka://broker-without-port");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--kafka-url").contains("kafka://host:port[,host:port]");
    }

    @Test
    void anUnknownGroupProtocolIsAUsageErrorNamingTheChoices() {
        LabRun run = LabRun.of("scenario", "redelivery", "--store", "memory", "--group-protocol", "share");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--group-protocol must be classic, consumer or both, not share")
                .doesNotContain("\tat ");
    }

    @Test
    void theCrashTableRefusesTheMemoryStoreWhichItsChildJvmCannotReach() {
        LabRun run = LabRun.of("scenario", "redelivery-crash", "--store", "memory");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("child JVM").contains("use --store redis or postgres").doesNotContain("Exception");
    }

    @Test
    void theCrashTablesInboxNeedsPostgresAndItsBoundariesAreNamed() {
        LabRun inbox = LabRun.of("scenario", "redelivery-crash", "--mode", "inbox");
        assertThat(inbox.exitCode()).isEqualTo(2);
        assertThat(inbox.err()).contains("--mode inbox").contains("use --store postgres");
        LabRun at = LabRun.of("scenario", "redelivery-crash", "--at", "halfway");
        assertThat(at.exitCode()).isEqualTo(2);
        assertThat(at.err()).contains("--at must be one of record_received, charge_created, record_completed or each");
        LabRun help = LabRun.of("scenario", "redelivery-crash", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("SIGKILL", "--mode", "--at", "--kafka-url");
    }

    @Test
    void itsHelpNamesTheBrokerOptionAndItsEnvironmentVariable() {
        LabRun run = LabRun.of("scenario", "redelivery", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--kafka-url").contains("IDEMLAB_KAFKA_URL");
    }

    @Test
    void theShareGroupTableSetsItsOwnLatencyAndNamesItsBrokerOptions() {
        LabRun latency = LabRun.of("scenario", "share-lock-expiry", "--store", "memory", "--latency-ms", "100");
        assertThat(latency.exitCode()).isEqualTo(2);
        assertThat(latency.err()).contains("--latency-ms: share-lock-expiry sets it for itself").doesNotContain("Exception");
        LabRun url = LabRun.of("scenario", "share-lock-expiry", "--store", "memory", "--kafka-url", "kafka://no-port");
        assertThat(url.exitCode()).isEqualTo(2);
        assertThat(url.err()).contains("--kafka-url").contains("kafka://host:port[,host:port]");
        LabRun help = LabRun.of("scenario", "share-lock-expiry", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("share group", "acquisition lock", "--kafka-url", "--policy", "--store");
    }
}
