package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SummaryTest {

    private static final double EPSILON = 1e-9;

    private final Summary full = Summary.of(JmhResults.read(List.of(resource("jmh-crafted.json"))));

    @Test
    void ratioIsOursOverRawThroughputAfterNormalisingUnits() {
        Comparison redisFirstCall = only(full, StoreKind.REDIS, Question.FIRST_CALL, 1, "rawReserve");
        assertThat(redisFirstCall.oursOpsPerSecond()).isCloseTo(20_000, within(EPSILON));
        assertThat(redisFirstCall.rawOpsPerSecond()).isCloseTo(40_000, within(EPSILON));
        assertThat(redisFirstCall.ratio()).isCloseTo(0.5, within(EPSILON));

        assertThat(only(full, StoreKind.REDIS, Question.REPLAY, 4, "rawReserve").ratio())
                .isCloseTo(0.75, within(EPSILON));
        assertThat(only(full, null, Question.FINGERPRINT, 1, "rawJsonSha256").ratio())
                .isCloseTo(0.25, within(EPSILON));
    }

    @Test
    void overheadIsTheDifferenceOfTimePerOperationPerThread() {
        Comparison memoryReplay = only(full, StoreKind.MEMORY, Question.REPLAY, 1, "rawPlainRead");
        assertThat(memoryReplay.oursMicrosPerOp()).isCloseTo(1.0, within(EPSILON));
        assertThat(memoryReplay.rawMicrosPerOp()).isCloseTo(0.1, within(EPSILON));
        assertThat(memoryReplay.overheadMicros()).isCloseTo(0.9, within(EPSILON));

        // 4 threads together: 0.5 ops/us is 8 us per operation of each thread; raw 2 ops/us is 2 us.
        Comparison memoryFirstCall = only(full, StoreKind.MEMORY, Question.FIRST_CALL, 4, "rawReserve");
        assertThat(memoryFirstCall.overheadMicros()).isCloseTo(6.0, within(EPSILON));
    }

    @Test
    void targetsAreJudgedOnTheirOwnBaselineAtEachThreadCount() {
        Map<Target, List<Boolean>> verdicts = new LinkedHashMap<>();
        for (Target target : Target.PUBLISHED) {
            verdicts.put(target, full.judged(target).stream().map(target::metBy).toList());
        }
        // The crafted run has no SET NX PX or GET baseline on redis: those targets are not judged.
        assertThat(verdicts).containsEntry(target(StoreKind.REDIS, Question.FIRST_CALL), List.of())
                .containsEntry(target(StoreKind.REDIS, Question.REPLAY), List.of())
                .containsEntry(target(StoreKind.MEMORY, Question.REPLAY), List.of(true))
                .containsEntry(target(StoreKind.MEMORY, Question.FIRST_CALL), List.of(false))
                .containsEntry(target(StoreKind.POSTGRES, Question.FIRST_CALL), List.of());
    }

    @Test
    void percentilesAreReadInMicroseconds() {
        JmhRecord sample = full.results().find("ReplayBenchmark", "coordinator", "MEMORY", 1, JmhRecord.SAMPLE_TIME)
                .orElseThrow();
        assertThat(sample.score()).isCloseTo(1.5, within(EPSILON));
        assertThat(sample.percentile("50.0")).isCloseTo(1.0, within(EPSILON));
        assertThat(sample.percentile("99.0")).isCloseTo(3.0, within(EPSILON));
        assertThat(sample.percentile("99.9")).isCloseTo(9.0, within(EPSILON));
    }

    @Test
    void aSampleTimeOnlyRunDerivesThroughputFromTheMeanTime() {
        Summary quick = Summary.of(JmhResults.read(List.of(resource("jmh-crafted-sample-only.json"))));
        Comparison pgFirstCall = only(quick, StoreKind.POSTGRES, Question.FIRST_CALL, 4, "rawPlainWrite");
        assertThat(quick.results().throughputDerived()).isTrue();
        assertThat(pgFirstCall.oursOpsPerSecond()).isCloseTo(20_000, within(1e-6));
        assertThat(pgFirstCall.rawOpsPerSecond()).isCloseTo(40_000, within(1e-6));
        assertThat(pgFirstCall.ratio()).isCloseTo(0.5, within(EPSILON));
        assertThat(quick.judged(target(StoreKind.POSTGRES, Question.FIRST_CALL))).containsExactly(pgFirstCall);
    }

    @Test
    void aRunThatMeasuredThroughputNeverFallsBackToDerivedFigures() {
        // The crafted run measured throughput; its memory replay coordinator also has a SampleTime result,
        // but the Throughput result of the raw reserve on memory is missing: no comparison, and it is listed.
        assertThat(full.results().throughputDerived()).isFalse();
        assertThat(full.results().throughput("ReplayBenchmark", "rawReserve", "MEMORY", 1)).isEmpty();
        assertThat(full.results().missing())
                .contains("ReplayBenchmark.rawReserve store=MEMORY threads=1 mode=thrpt");
    }

    @Test
    void thePageShowsEachRatioAndVerdict() {
        RunInfo run = new RunInfo(2, List.of("redis 7.2.4 (bundled binary, private instance) at 127.0.0.1"));
        String page = MarkdownPage.render(full, run, Map.of());
        assertThat(page).contains("* servers, as each reported itself:\n  * redis 7.2.4")
                .contains("| first call | 1 | 20,000 | EVALSHA of a minimal reserve script | 40,000 | 0.500 |")
                .contains("| 4 | 6.000 µs |  | reported, not judged (more threads than cores) |",
                        "| 1 | 0.900 µs |  | **met** |")
                .contains("| memory first call allocates <= 500 bytes per operation | 4 | n/a |  | not measured |")
                .contains("| postgres first call >= 0.80x the throughput of INSERT ... ON CONFLICT DO NOTHING, "
                        + "then UPDATE | | | | not measured |");
    }

    @Test
    void aFigureAtMoreThreadsThanCoresIsReportedNotJudged() {
        RunInfo twoCores = new RunInfo(2, List.of());
        RunInfo fourCores = new RunInfo(4, List.of());
        String memoryFirstCall = "| memory first call overhead <= 1.5 µs per operation over ConcurrentHashMap.putIfAbsent | 4 ";
        assertThat(MarkdownPage.render(full, twoCores, Map.of()))
                .contains(memoryFirstCall + "| 6.000 µs |  | reported, not judged (more threads than cores) |")
                .doesNotContain(memoryFirstCall + "| 6.000 µs |  | **missed** |");
        assertThat(MarkdownPage.render(full, fourCores, Map.of()))
                .contains(memoryFirstCall + "| 6.000 µs |  | **missed** |");
        assertThat(Target.judgesAt(1, 1)).isTrue();
        assertThat(Target.judgesAt(2, 1)).isFalse();
    }

    @Test
    void aTargetIsMetOnlyWhenTheSampleTimeCrossCheckMeetsItToo() {
        // Throughput 0.95x, which alone would meet 0.9x; the SampleTime means, minutes apart, 0.8x.
        Summary disagreeing = Summary.of(JmhResults.read(List.of(resource("jmh-crafted-modes-disagree.json"))));
        Comparison pgFirstCall = only(disagreeing, StoreKind.POSTGRES, Question.FIRST_CALL, 1, "rawPlainWrite");
        Target target = target(StoreKind.POSTGRES, Question.FIRST_CALL);
        assertThat(target.value(pgFirstCall)).isCloseTo(0.95, within(EPSILON));
        assertThat(target.crossCheck(pgFirstCall)).isCloseTo(0.8, within(EPSILON));
        assertThat(target.metBy(pgFirstCall)).isFalse();

        RunInfo run = new RunInfo(2, List.of());
        assertThat(MarkdownPage.render(disagreeing, run, Map.of()))
                .contains("| 1 | 0.950x | 0.800x | **missed** |");
    }

    @Test
    void withoutASampleTimeResultTheThroughputAloneJudges() {
        Comparison memoryReplay = only(full, StoreKind.MEMORY, Question.REPLAY, 1, "rawPlainRead");
        Target target = Target.PUBLISHED.stream().filter(t -> t.reads(memoryReplay)).findFirst().orElseThrow();
        assertThat(target.crossCheck(memoryReplay)).isNaN();
        assertThat(target.metBy(memoryReplay)).isTrue();
    }

    private static Comparison only(Summary summary, StoreKind store, Question question, int threads, String baseline) {
        List<Comparison> matching = summary.comparisons().stream()
                .filter(c -> c.store() == store && c.question() == question && c.threads() == threads
                        && c.baseline().equals(baseline))
                .toList();
        assertThat(matching).hasSize(1);
        return matching.get(0);
    }

    private static Target target(StoreKind store, Question question) {
        return Target.PUBLISHED.stream().filter(t -> t.store() == store && t.question() == question)
                .findFirst().orElseThrow();
    }

    private static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(SummaryTest.class.getResource("/" + name), name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
