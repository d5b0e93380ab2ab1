package dev.idemlab.lab.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab load --find-knee} and {@code --filter-cost}: bad values and combinations exit 2 naming the
 * rule, and one tiny run of each on the memory store prints its table. No figure is asserted.
 */
class CapacityCommandTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "--find-knee --knee-p99-ms 0; --knee-p99-ms must be between 1 and 10000, got 0",
        "--find-knee --knee-steps 1; --knee-steps must be between 2 and 50, got 1",
        "--knee-steps 5; --knee-p99-ms and --knee-steps shape the knee search: use them with --find-knee",
        "--find-knee --filter-cost; --find-knee and --filter-cost are two runs: give one, not both",
        "--find-knee --requests 100; --find-knee does not take --requests",
        "--find-knee --policy run; --find-knee needs one policy that promises exactly-once, wait or raise",
        "--find-knee --rate 0; --rate must be between 1 and 1000000",
        "--find-knee --format json; --format must be table or markdown, got 'json'",
        "--filter-cost --rate 100; --filter-cost does not take --rate",
        "--samples webflux; --samples picks the samples --filter-cost measures",
        "--filter-cost --samples servlet,spring; --samples takes servlet, webflux (comma-separated) or none, got 'spring'",
        "--filter-cost --transport http; --filter-cost does not take --transport",
        "--filter-cost --retry-rate 0.5; --filter-cost does not take --retry-rate",
    })
    void aBadValueOrCombinationExits2NamingTheRule(String options, String rule) {
        String[] args = ("load --store memory " + options).split(" ");

        LabRun run = LabRun.of(args);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ");
    }

    @Test
    void aTinyKneeSearchOnMemoryReportsBothDriversAndTheServer() {
        LabRun run = LabRun.of("load", "--find-knee", "--store", "memory", "--rate", "100", "--knee-steps", "2",
                "--duration", "200ms", "--clients", "4", "--latency-ms", "1");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("| store | coordinator knee | raw knee | ratio | target | verdict |")
                .contains("| memory |").contains("reported").contains("* memory (in this process)")
                .contains("#### memory, through the coordinator").contains("#### memory, raw");
        assertThat(run.err()).contains("lab: knee memory raw step 2: ");
    }

    /** One tiny run of the filter comparison on memory, recorded: its table, and each server's recording. */
    @Test
    void aTinyFilterComparisonOnMemoryHasARowPerKindOfRequestWithTheRawWritesFloorAndEachServersRecording(
            @TempDir Path recordings) {
        LabRun run = LabRun.of("load", "--filter-cost", "--store", "memory", "--duration", "300ms", "--clients", "2",
                "--latency-ms", "0", "--flight-recordings", recordings.toString(), "--samples", "none");

        assertThat(run.out()).as(run.err()).contains("| memory | first call |").contains("| memory | replay |")
                .contains("| memory | in-flight conflict |");
        // The filtered and the raw-writes servers each answered every conflict 409 and every replay from the record.
        assertThat(run.out()).contains("* memory, in-flight conflict: executed 0, replayed 0, in-progress ")
                .containsPattern("\\* memory, in-flight conflict: executed 0, replayed 0, in-progress \\d+, "
                        + "indeterminate 0; executed 0, replayed 0, in-progress \\d+, indeterminate 0")
                .containsPattern("\\* memory, replay: executed 0, replayed \\d+, in-progress 0, indeterminate 0; "
                        + "executed 0, replayed \\d+, in-progress 0, indeterminate 0")
                .contains("| server CPU µs/req filtered | raw-writes | bare |")
                .contains("<= +50 µs CPU over bare");
        // Each server's flight recording, and the page of where its time went.
        assertThat(run.out()).contains("### Where the server's time went")
                .contains("| fingerprint: canonical JSON and its hash |").contains("| memory/replay, filtered |");
        assertThat(recordings.resolve("memory-first-call-filtered.jfr")).isNotEmptyFile();
        assertThat(recordings.resolve("memory-in-flight-conflict-bare.jfr")).isNotEmptyFile();
    }

    @Test
    void flightRecordingsNeedTheFilterComparison() {
        LabRun run = LabRun.of("load", "--find-knee", "--store", "memory", "--flight-recordings", "target/jfr");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--flight-recordings records the servers of --filter-cost");
    }

    @Test
    void theWebFluxSampleIsMeasuredWithItsFilterOnAndOffAndItsReplaysComeFromTheRecord() {
        LabRun run = LabRun.of("load", "--filter-cost", "--store", "memory", "--duration", "300ms", "--clients", "2",
                "--latency-ms", "0", "--samples", "webflux");

        assertThat(run.out()).as(run.err()).contains("### The starter's path: the samples with and without the library")
                .contains("| WebFlux sample, filter | memory | first call |")
                .contains("| WebFlux sample, filter | memory | replay |");
        // On, the primed keys came back from the record: replays, none executed; off, there is nothing to replay.
        assertThat(run.out()).containsPattern("\\* WebFlux sample, filter, memory, replay: executed 0, replayed [1-9]\\d*, "
                + "in-progress 0, indeterminate 0");
        assertThat(run.err()).contains("memory/replay, WebFlux sample, filter on: ")
                .contains("memory/replay, WebFlux sample, filter off: ");
        // Each row clean: on, answered as its kind; off, every request ran the charge (the filter was really off).
        assertThat(run.out()).containsPattern("\\| WebFlux sample, filter \\| memory \\| first call \\|.*\\| yes \\|")
                .containsPattern("\\| WebFlux sample, filter \\| memory \\| replay \\|.*\\| yes \\|");
    }
}
