package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The failure lab's command line: its rules, and the stall load's must-show. */
class FailureLabCommandTest {

    @Test
    void aStallNeedsTheLabsOwnRedis() {
        LabRun run = LabRun.of("load", "--store", "memory", "--stall", "5s:1500ms", "--duration", "1s");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--stall stalls the lab's own private Redis server").doesNotContain("Exception");
    }

    @Test
    void aStallLongerThanItsPeriodIsRefused() {
        LabRun run = LabRun.of("load", "--store", "redis", "--stall", "1s:2s");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("FOR must be shorter than EVERY");
    }

    /** An option a scenario sets for itself is refused where that scenario runs alone, never silently ignored. */
    @Test
    void optionsAScenarioFixesForItselfAreRefused() {
        LabRun latency = LabRun.of("scenario", "lease-overrun", "--store", "memory", "--latency-ms", "300");
        assertThat(latency.exitCode()).as(latency.err()).isEqualTo(2);
        assertThat(latency.err()).contains("--latency-ms: lease-overrun sets it for itself").doesNotContain("Exception");
        LabRun lease = LabRun.of("scenario", "ghost-reservation", "--store", "redis", "--lease-s", "5");
        assertThat(lease.exitCode()).as(lease.err()).isEqualTo(2);
        assertThat(lease.err()).contains("--lease-s: ghost-reservation sets it for itself");
    }

    @Test
    void onOffOptionsSayTheirRule() {
        LabRun run = LabRun.of("scenario", "provider-ambiguous", "--store", "memory", "--downstream-key", "maybe");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--downstream-key must be on or off");
        LabRun policy = LabRun.of("scenario", "scope", "--store", "memory", "--policy", "run");
        assertThat(policy.exitCode()).isEqualTo(2);
        assertThat(policy.err()).contains("--policy must be wait, raise or all");
        LabRun crash = LabRun.of("scenario", "crash-mid-charge", "--store", "memory");
        assertThat(crash.exitCode()).isEqualTo(2);
        assertThat(crash.err()).contains("needs a store another process can reach");
    }

    @Test
    void withTheDownstreamKeyAStalledRedisLeavesNoDuplicateInTheLedger() {
        LabRun run = LabRun.of("load", "--store", "redis", "--policy", "wait", "--stall", "1s:300ms",
                "--store-patience-ms", "0", "--downstream-key", "on", "--duration", "3s", "--clients", "8",
                "--retry-rate", "0.3", "--provider-latency-ms", "20");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        Matcher row = Pattern.compile("\\n  redis\\s+wait\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)").matcher(run.out());
        assertThat(row.find()).as(run.out()).isTrue();
        assertThat(Integer.parseInt(row.group(1))).as("stalls made").isPositive();
        assertThat(Integer.parseInt(row.group(3))).as("duplicate charges").isZero();
        assertThat(Integer.parseInt(row.group(4))).as("keys with different answers").isZero();
    }
}
