package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder in a child JVM paused past its lease whose action then fails, as a provider call that timed
 * out during the pause does: it releases the key with the token of the reservation it lost, while a
 * retry that took the key over still holds it, and a late retry comes after. On real Redis and the
 * library as it is, the release leaves the taker alone: the child charged nothing, a taker ran, and
 * the checker flags nothing. (A release that ignores its token, the mutant
 * {@code redis-release-ignores-token}, lets the late retry charge again; scripts/mutants.sh runs it.)
 */
class PausedHoldersThatFailLetGoOfTheKeyTest {

    private static final Duration DURATION = Duration.ofSeconds(10);

    @Test
    void theStaleReleaseLeavesTheTakerAlone() throws Exception {
        long seed = seedWhoseFirstPauseFails();
        NemesisSettings settings = new NemesisSettings(seed, DURATION, NemesisSettings.DEFAULT_LEASE, false,
                Sabotage.NONE);
        NemesisResult result;
        try (StoreBackend backend = StoreBackends.open("redis", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(backend, settings, line -> { }, kind -> kind == FaultKind.PAUSE_HOLDER);
        }
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        Set<Integer> failing = plans(seed).stream().filter(HolderPlan::failsAfterPause).map(HolderPlan::key)
                .collect(Collectors.toSet());
        List<CallRecord> played = result.history().calls().stream().filter(call -> failing.contains(call.key)).toList();
        assertThat(played).as(report).anyMatch(CallRecord::child);
        for (int key : played.stream().map(call -> call.key).distinct().toList()) {
            List<CallRecord> calls = played.stream().filter(call -> call.key == key).toList();
            CallRecord child = calls.stream().filter(CallRecord::child).findFirst().orElseThrow();
            assertThat(child.charged()).as("key %d's child, which fails after its pause", key).isNull();
            assertThat(calls).as("key %d: a retry took the key over and ran", key)
                    .anyMatch(call -> call.outcome() == Outcome.EXECUTED);
        }
    }

    /** The first seed from 1 on whose first holder fault is a pause that ends in a failure. */
    private static long seedWhoseFirstPauseFails() {
        for (long seed = 1; ; seed++) {
            List<HolderPlan> plans = plans(seed);
            if (!plans.isEmpty() && plans.get(0).failsAfterPause()) {
                return seed;
            }
        }
    }

    private static List<HolderPlan> plans(long seed) {
        FaultSchedule schedule = FaultSchedule.draw(seed, DURATION, List.of(FaultKind.PAUSE_HOLDER));
        return HolderPlan.draw(seed, schedule, Workload.draw(seed, DURATION, NemesisSettings.DEFAULT_LEASE)
                .requests().size(), NemesisSettings.DEFAULT_LEASE);
    }
}
