package dev.idemlab.lab.cli;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab cost} from the command line: its usage errors, and a short measurement on the lab's own
 * servers whose figures come from the servers' counters (so only their shape and what a record leaves
 * behind are asserted, never a size that depends on the allocator).
 */
class CostCommandTest {

    private static final Pattern ROW = Pattern.compile(
            "(redis|postgres) +100 records of a 211 B result: 1\\.00 (keys|rows), (\\d+) B per record; .*: (\\d+) B; "
                    + "ratio (\\d+\\.\\d\\d)x .*; 10 released reservations left 0");

    private static final Pattern SERVER_TIME = Pattern.compile(
            "redis +100 calls: first call (\\d+\\.\\d\\d) µs against (\\d+\\.\\d\\d) µs for SET NX PX then SET XX PX, "
                    + "(\\d+\\.\\d\\d)x \\(<= 3\\.0x: (?:met|missed)\\); replay (\\d+\\.\\d\\d) µs against "
                    + "(\\d+\\.\\d\\d) µs for GET, (\\d+\\.\\d\\d)x \\(<= 2\\.0x: (?:met|missed)\\); lookup "
                    + "(\\d+\\.\\d\\d) µs, (\\d+\\.\\d\\d)x");

    @ParameterizedTest(name = "{0} {1} is refused naming the rule")
    @CsvSource({
            "--records, 10, --records must be from 100 to 1000000",
            "--result-bytes, 20, --result-bytes must be from 80 to 65536",
            "--stores, memory, '--stores must name stores among redis, postgres'",
            "--format, json, --format must be table or markdown"})
    void badOptionsAreUsageErrors(String option, String value, String message) {
        LabRun run = LabRun.of("cost", option, value);
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    @Test
    void everyCompletedRecordIsOneKeyOrRowAndAReleasedReservationLeavesNothing() {
        LabRun run = LabRun.of("cost", "--records", "100");

        assertThat(run.err()).contains("cost: 100 records of 211 B on redis").contains("100 of 100 records written");
        Matcher row = ROW.matcher(run.out());
        for (String store : new String[] {"redis", "postgres"}) {
            assertThat(row.find()).as(run.out()).isTrue();
            assertThat(row.group(1)).isEqualTo(store);
            long bytes = Long.parseLong(row.group(3));
            long raw = Long.parseLong(row.group(4));
            assertThat(bytes).as("a record holds its result and more").isGreaterThan(211);
            assertThat(raw).as("the raw write holds the result").isGreaterThan(211);
            assertThat(Double.parseDouble(row.group(5))).isCloseTo((double) bytes / raw, Offset.offset(0.01));
            assertThat(run.out()).contains(store + ": " + store + " ");
        }
        assertThat(run.out()).contains("appendonly=").contains("fsync=");
        Matcher time = SERVER_TIME.matcher(run.out());
        assertThat(time.find()).as("Redis's server time per call: " + run.out()).isTrue();
        double first = Double.parseDouble(time.group(1));
        double floor = Double.parseDouble(time.group(2));
        double replay = Double.parseDouble(time.group(4));
        double get = Double.parseDouble(time.group(5));
        assertThat(first).as("two scripts cost the server something").isPositive();
        assertThat(floor).isPositive();
        assertThat(get).isPositive();
        assertThat(replay).isPositive();
        assertThat(Double.parseDouble(time.group(3))).isCloseTo(first / floor, Offset.offset(0.1)); // of rounded figures
        assertThat(Double.parseDouble(time.group(6))).isCloseTo(replay / get, Offset.offset(0.1));
        double lookup = Double.parseDouble(time.group(7));
        assertThat(lookup).as("a waiter's lookup costs the server something").isPositive();
        assertThat(Double.parseDouble(time.group(8))).isCloseTo(lookup / get, Offset.offset(0.1));
        assertThat(run.exitCode()).as("exit 1 exactly when a target is missed: " + run.out())
                .isEqualTo(run.out().contains(": missed)") ? 1 : 0);
    }
}
