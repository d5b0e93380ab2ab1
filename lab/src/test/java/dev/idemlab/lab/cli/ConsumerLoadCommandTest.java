package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab consumer-load} on a private Kafka broker the lab starts: a short run on the in-memory store,
 * read back from its table. In the paced phase the bare consumer charges the records sent twice again;
 * the adapter charges every key once (the command exits 1 when it does not, from the provider's ledger).
 */
class ConsumerLoadCommandTest {

    @Test
    void theBareConsumerChargesRedeliveriesAgainAndTheAdapterEveryKeyOnce() {
        LabRun run = LabRun.of("consumer-load", "--stores", "memory", "--messages", "100", "--duplicates", "0.1",
                "--partitions", "2", "--paced-rate", "50", "--paced-seconds", "1", "--rounds", "2");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.err()).contains("consumer-load: broker Kafka ").contains("draining 100 records");
        // drained, then the paced phase's deliveries, keys, charges, keys charged twice, keys never charged
        for (String bare : new String[] {"bare consumer, run 1", "bare consumer, run 2", "bare consumer, run 3"}) {
            assertThat(row(run.out(), bare)).as(bare).containsExactly(100, 55, 50, 55, 5, 0);
        }
        for (String adapter : new String[] {"adapter on memory, round 1", "adapter on memory, round 2"}) {
            assertThat(row(run.out(), adapter)).as(adapter).containsExactly(100, 55, 50, 50, 0, 0);
        }
        assertThat(run.out()).contains("adapter on memory: one charge per key, none lost (ledger, every round)")
                .containsPattern("median [0-9.]+x the bare runs either side over 2 rounds \\([0-9.]+, [0-9.]+ in turn\\), "
                        + "(meeting|missing) the target of 0.7x");
    }

    @Test
    void settingsTheRunCannotTakeAreUsageErrors() {
        LabRun run = LabRun.of("consumer-load", "--stores", "kafka");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--stores takes memory, redis and postgres").doesNotContain("\tat ");
        LabRun share = LabRun.of("consumer-load", "--duplicates", "1.5");
        assertThat(share.exitCode()).isEqualTo(2);
        assertThat(share.err()).contains("--duplicates must be a fraction from 0 to 1, got 1.5");
        LabRun twice = LabRun.of("consumer-load", "--stores", "redis,redis");
        assertThat(twice.exitCode()).isEqualTo(2);
        assertThat(twice.err()).contains("--stores names each store once, got redis,redis");
        LabRun rounds = LabRun.of("consumer-load", "--rounds", "0");
        assertThat(rounds.exitCode()).isEqualTo(2);
        assertThat(rounds.err()).contains("--rounds must be from 1 to 20, got 0");
        LabRun url = LabRun.of("consumer-load", "--kafka-url", "http://127.0.0.1:9092");
        assertThat(url.exitCode()).isEqualTo(2);
        assertThat(url.err()).contains("--kafka-url: ").doesNotContain("\tat ");
    }

    /** The counts of the table's row for {@code consumer}: drained, then the paced phase's five. */
    private static int[] row(String out, String consumer) {
        Matcher row = Pattern.compile("(?m)^" + Pattern.quote(consumer)
                + "\\s+([0-9,]+)\\s+[0-9,]+\\s+\\S+\\s+([0-9,]+)\\s+([0-9,]+)\\s+([0-9,]+)\\s+([0-9,]+)\\s+([0-9,]+)\\s")
                .matcher(out);
        assertThat(row.find()).as("the row of %s in:%n%s", consumer, out).isTrue();
        int[] counts = new int[6];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = Integer.parseInt(row.group(i + 1).replace(",", ""));
        }
        return counts;
    }
}
