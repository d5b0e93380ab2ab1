package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker's soundness and power over generated histories: each seed draws a few keys, each key an
 * opening (one charge; or a takeover of a lease a freeze ended; or a reservation a restart from a
 * snapshot lost, then its taker), then episodes that explain their own extra charge (a fail-open under a
 * fault of its own) and at most one planted double charge of a kind the checker once let stand or
 * could (two holders in one live lease, a fail-open with no store error, a takeover of what a fail-open
 * left, a restart that lost nothing of the key, a second taker of one lost lease). Every planted one
 * must be flagged on its key, and no key without one.
 */
class PlantedDoubleChargesTest {

    private static final long SLOT = 60_000;
    private static final long EPISODE = 12_000;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 300);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyPlantedDoubleChargeIsFlaggedAndNoExplainedOneIs(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        HandBuiltHistory history = new HandBuiltHistory("redis");
        Set<Integer> planted = new TreeSet<>();
        int explainedExtras = 0;
        int keys = 1 + random.nextInt(4);
        for (int key = 0; key < keys; key++) {
            long base = key * SLOT;
            explainedExtras += opening(random.nextInt(3), history, key, base);
            int episodes = random.nextInt(3);
            int plantAt = random.nextInt(3) == 0 ? -1 : random.nextInt(episodes + 1);
            for (int episode = 0; episode <= episodes; episode++) {
                long at = base + (episode + 1) * EPISODE;
                if (episode == plantAt) {
                    plant(random.nextInt(5), history, key, at);
                    planted.add(key);
                } else if (episode < episodes) {
                    failOpenUnderAFault(history, key, at);
                    explainedExtras++;
                }
            }
        }

        NemesisVerdict verdict = history.check();

        Set<Integer> flagged = verdict.violations().stream().filter(v -> v.rule().equals("duplicate-charge"))
                .map(Violation::key).collect(Collectors.toCollection(TreeSet::new));
        assertThat(flagged).as("keys flagged, seed %d: %s", seed, verdict.violations()).isEqualTo(planted);
        assertThat(verdict.violations()).allMatch(v -> v.rule().equals("duplicate-charge"));
        if (planted.isEmpty()) {
            assertThat(verdict.explainedDuplicates()).isEqualTo(explainedExtras);
        }
    }

    /** The key's first charge, alone or with a takeover the checker must explain; returns the explained extras. */
    private static int opening(int kind, HandBuiltHistory history, int key, long at) {
        switch (kind) {
            case 0 -> {
                history.holder(key, at, at, at + 100, Outcome.EXECUTED);
                return 0;
            }
            case 1 -> {
                // A freeze from 1.9 s to 4.0 s held every renewal of a lease last renewed at 1.0 s.
                history.fault(FaultKind.FREEZE, at + 1900, at + 4000);
                history.holder(key, at, at, at + 6000, Outcome.LEASE_LOST);
                history.holder(key, at + 4100, at + 4100, at + 4200, Outcome.EXECUTED);
                return 1;
            }
            default -> {
                // Reserved between the save and the restart: the restarted server never saw it.
                history.fault(FaultKind.RESTART_FROM_SNAPSHOT, at + 100, at + 1000);
                history.holder(key, at + 200, at + 200, at + 9000, Outcome.EXECUTED);
                history.holder(key, at + 1300, at + 1300, at + 1400, Outcome.EXECUTED);
                return 1;
            }
        }
    }

    private static void failOpenUnderAFault(HandBuiltHistory history, int key, long at) {
        history.fault(FaultKind.KILL_CONNECTIONS, at, at + 500);
        history.failedOpen(key, at + 200, at + 300, at + 400);
    }

    private static void plant(int kind, HandBuiltHistory history, int key, long at) {
        switch (kind) {
            case 0 -> { // two holders 1.5 s apart inside one live lease, no fault near
                history.holder(key, at, at, at + 2500, Outcome.EXECUTED);
                history.holder(key, at + 1500, at + 1500, at + 1600, Outcome.EXECUTED);
            }
            case 1 -> history.failedOpen(key, at + 200, at + 300, at + 400); // no store error behind it
            case 2 -> { // the fail-open explains itself; what "took it over" explains nothing
                history.fault(FaultKind.FREEZE, at, at + 4500);
                history.failedOpen(key, at + 200, at + 300, at + 4600);
                history.holder(key, at + 3900, at + 3900, at + 4000, Outcome.EXECUTED);
            }
            case 3 -> { // the snapshot held every record of the key: the restart lost nothing of it
                history.fault(FaultKind.RESTART_FROM_SNAPSHOT, at, at + 1000);
                history.holder(key, at + 1300, at + 1300, at + 1400, Outcome.EXECUTED);
            }
            default -> { // one lease a freeze ended, taken over twice
                history.fault(FaultKind.FREEZE, at + 1900, at + 4000);
                history.holder(key, at, at, at + 6000, Outcome.LEASE_LOST);
                history.holder(key, at + 4100, at + 4100, at + 4200, Outcome.EXECUTED);
                history.holder(key, at + 4300, at + 4300, at + 4400, Outcome.EXECUTED);
            }
        }
    }
}
