package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seeded workload through the Spring Boot sample in a JVM of its own (its jar built by the reactor
 * before the lab's tests), on the lab's private Redis: its store client reaches Redis through the
 * nemesis's proxy, whose faults it gets as the bare coordinator does, and its JVM is the holder the
 * nemesis pauses past the lease and kills (then starts again). Run as a team runs it (WAIT, failing
 * closed, the downstream key passed on), nothing is found, and whatever charged twice is explained by a
 * fault of its own; in its result-cache mode (the post's baseline) the same workload charges twice with
 * nothing to explain it, and the checker says so. Short runs: each starts the sample's JVM, twice where
 * it is killed.
 */
class NemesisThroughTheSampleTest {

    @Test
    void theSamplePausedKilledAndCutOffFromItsStoreChargesOncePerKey() throws Exception {
        NemesisSettings settings = settings(Sabotage.NONE, Duration.ofSeconds(6));
        // Its own JVM's faults and the proxy's, which reach its store client: the faults this path adds.
        Predicate<FaultKind> faults = kind -> kind.onChildHolder() || kind == FaultKind.FREEZE
                || kind == FaultKind.RESET;
        NemesisResult result = run(settings, faults);
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(report).contains("through: sample").contains("--through sample");
        NemesisHistory history = result.history();
        assertThat(history.faults()).as(report).anyMatch(FaultEvent::injected);
        assertThat(history.faults()).as("holder faults are played on the sample's JVM, which holds every key")
                .filteredOn(fault -> fault.kind().onChildHolder()).allMatch(fault -> fault.key() == HolderFaults.EVERY_KEY);
        assertThat(history.ledger()).as(report).isNotEmpty();
        assertThat(history.calls()).extracting(CallRecord::client).containsOnly("client-a", "client-b");
        assertThat(history.calls()).as("charges tied to the calls that made them").anyMatch(call -> call.charged() != null);
    }

    @Test
    void theSamplesResultCacheModeIsFlagged() throws Exception {
        NemesisSettings broken = settings(Sabotage.RESULT_CACHE, Duration.ofSeconds(3));
        NemesisResult result = run(broken, kind -> false);
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isFalse();
        assertThat(result.verdict().violations()).as(report)
                .anySatisfy(violation -> assertThat(violation.rule()).isEqualTo("duplicate-charge"));
        assertThat(report).contains("--sabotage result-cache").contains("seed " + broken.seed());
    }

    private static NemesisSettings settings(Sabotage sabotage, Duration duration) {
        long seed = NemesisOnEveryStoreTest.seed();
        System.out.println("nemesis through the sample: seed " + seed);
        return new NemesisSettings(seed, duration, NemesisSettings.DEFAULT_LEASE, false, sabotage, Through.SAMPLE,
                Clients.BEARER);
    }

    private static NemesisResult run(NemesisSettings settings, Predicate<FaultKind> faults) throws Exception {
        NemesisResult result;
        try (StoreBackend redis = StoreBackends.open("redis", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(redis, settings, line -> System.out.println("nemesis: " + line), faults);
        }
        System.out.println(NemesisReport.text(result).lines().limit(60).collect(Collectors.joining(System.lineSeparator())));
        return result;
    }
}
