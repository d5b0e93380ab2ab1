package dev.idemlab.lab.load;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter comparison's warm-up sent first calls seeded with the complement of the run's seed, whose
 * key stream is the measured run's shifted by a few dozen draws (the seed is multiplied by the same gamma
 * the state steps by): a 2 s warm-up drew the measured run's first keys, and 678 of a raw-writes
 * first-call run's requests came back as replays. The warm-up's seed now shares no more keys with the
 * run than two independent draws from a billion keys do by chance: 10,000 draws each meet 0.1 times on
 * average, and more than 2 shared keys has a chance under 2 in 10,000; the complement shared thousands.
 */
class TheWarmUpDrawsNoneOfTheMeasuredKeysTest {

    private static final int DRAWS = 10_000;

    @Test
    void theWarmUpSharesNoMoreKeysWithTheMeasuredRunThanChanceDoes() {
        for (long seed : new long[] {42, 0}) {
            for (int client = 0; client < 2; client++) {
                Set<Integer> shared = keys(LoadSession.keyRandom(seed, client));
                shared.retainAll(keys(LoadSession.keyRandom(FilterCost.warmUpSeed(seed), client)));

                assertThat(shared).as("seed %d, client %d", seed, client).hasSizeLessThanOrEqualTo(2);
            }
        }
    }

    private static Set<Integer> keys(SplittableRandom random) {
        Set<Integer> keys = new HashSet<>();
        for (int i = 0; i < DRAWS; i++) {
            keys.add(random.nextInt(LoadSettings.DEFAULT_KEYS));
        }
        return keys;
    }
}
