package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25: {@code lab sweep} streams first calls with a short ttl into the lab's own PostgreSQL and
 * samples the table. Its rows and its verdict come from the table itself: once the first ttl has
 * passed, the stream's rows stay within what the ttl keeps alive plus one wake's worth and a batch.
 * Nothing here asserts a duration.
 */
class SweepCommandTest {

    private static final Pattern SAMPLE = Pattern.compile("(?m)^ +(\\d+) s +([\\d,]+) +([\\d,]+) +([\\d,]+) ");

    @Test
    void aSteadyStreamLeavesTheTableFlatAndTheSweeperDeletesWhatExpired() {
        // 3,000 first calls against a bound of 1,450 rows: without a sweep the table would pass it.
        LabRun run = LabRun.of("sweep", "--duration", "15s", "--ttl", "2s", "--rate", "200", "--every", "1s",
                "--sweep-every-writes", "50");

        assertThat(run.err()).contains("sweep: 200 first calls a second for 15 s, ttl 2 s, on postgres");
        assertThat(run.out()).contains("The ttl keeps 400 rows alive at this rate; a sweep that keeps up leaves at "
                + "most 1,450.");
        Matcher sample = SAMPLE.matcher(run.out());
        List<long[]> samples = new ArrayList<>();
        while (sample.find()) {
            samples.add(new long[] {Long.parseLong(sample.group(1)), number(sample.group(2)), number(sample.group(3)),
                    number(sample.group(4))});
        }
        assertThat(samples).as(run.out()).hasSizeGreaterThanOrEqualTo(5);
        long[] last = samples.get(samples.size() - 1);
        assertThat(last[1]).as("written, more than the bound").isGreaterThan(1_450);
        assertThat(last[2]).as("rows: the expired ones were swept").isLessThanOrEqualTo(1_450);
        assertThat(run.out()).contains("verdict: flat");
        assertThat(run.exitCode()).as(run.err()).isZero();
    }

    @ParameterizedTest(name = "{0} {1} is refused naming the rule")
    @CsvSource({
            "--rate, 0, --rate must be from 1 to 5000",
            "--ttl, 500ms, --ttl must be at least 1s",
            "--format, json, --format must be table or markdown"})
    void badOptionsAreUsageErrors(String option, String value, String message) {
        LabRun run = LabRun.of("sweep", option, value);
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    private static long number(String text) {
        return Long.parseLong(text.replace(",", ""));
    }
}
