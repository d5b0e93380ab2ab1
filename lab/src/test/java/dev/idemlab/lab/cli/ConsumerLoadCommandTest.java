package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab consumer-load} on a private Kafka broker the lab starts: a short run on the in-memory store,
 * read back from its table. The bare consumer charges the records sent twice again; the adapter charges
 * every key once (the command exits 1 when it does not, from the provider's ledger).
 */
class ConsumerLoadCommandTest {

    @Test
    void theBareConsumerChargesRedeliveriesAgainAndTheAdapterEveryKeyOnce() {
        LabRun run = LabRun.of("consumer-load", "--stores", "memory", "--messages", "100", "--duplicates", "0.1",
                "--partitions", "2", "--paced-rate", "50", "--paced-seconds", "1");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.err()).contains("consumer-load: broker Kafka ").contains("draining 110 deliveries");
        // deliveries, charges, keys charged twice, keys never charged
        assertThat(row(run.out(), "bare consumer")).containsExactly(110, 110, 10, 0);
        assertThat(row(run.out(), "adapter on memory")).containsExactly(110, 100, 0, 0);
        assertThat(run.out()).contains("adapter on memory: one charge per key, none lost (ledger)")
                .containsPattern("[0-9.]+x the bare consumer's throughput, (meeting|missing) the target of 0.7x");
    }

    @Test
    void aStoreTheAdapterDoesNotRunOnIsAUsageError() {
        LabRun run = LabRun.of("consumer-load", "--stores", "kafka");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--stores takes memory, redis and postgres").doesNotContain("\tat ");
        LabRun share = LabRun.of("consumer-load", "--duplicates", "1.5");
        assertThat(share.exitCode()).isEqualTo(2);
        assertThat(share.err()).contains("--duplicates must be a fraction from 0 to 1, got 1.5");
    }

    /** The four counts of the table's row for {@code consumer}. */
    private static int[] row(String out, String consumer) {
        Matcher row = Pattern.compile("(?m)^" + Pattern.quote(consumer) + "\\s+([0-9,]+)\\s+([0-9,]+)\\s+([0-9,]+)\\s+([0-9,]+)\\s")
                .matcher(out);
        assertThat(row.find()).as("the row of %s in:%n%s", consumer, out).isTrue();
        int[] counts = new int[4];
        for (int i = 0; i < 4; i++) {
            counts[i] = Integer.parseInt(row.group(i + 1).replace(",", ""));
        }
        return counts;
    }
}
