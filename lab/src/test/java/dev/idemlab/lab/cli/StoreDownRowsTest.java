package dev.idemlab.lab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store-down run of a call and its retry counts storage errors per row the way it counts charges: up to
 * that caller's answer. The first call's row used to show the whole run's errors, its retry's included.
 */
class StoreDownRowsTest {

    private static final Pattern ROW = Pattern.compile("\\n  (first call|retry) +-> .*charges made=(\\d+), storage errors=(\\d+)");

    @Test
    void theFirstCallsRowCountsOnlyTheErrorsBeforeItsAnswer() {
        LabRun run = LabRun.of("scenario", "store-down", "--store", "redis", "--downstream-key", "off", "--latency-ms", "20");
        assertThat(run.exitCode()).as(run.err()).isZero();
        Matcher first = ROW.matcher(run.out());
        assertThat(first.find()).as(run.out()).isTrue();
        assertThat(first.group(1)).isEqualTo("first call");
        Matcher retry = ROW.matcher(run.out());
        assertThat(retry.find(first.end())).as(run.out()).isTrue();
        assertThat(retry.group(1)).isEqualTo("retry");
        assertThat(Integer.parseInt(first.group(2))).as("charges after the first call").isEqualTo(1);
        assertThat(Integer.parseInt(retry.group(2))).as("charges after the retry").isEqualTo(2);
        assertThat(Long.parseLong(first.group(3))).as("storage errors after the first call").isPositive()
                .isLessThan(Long.parseLong(retry.group(3)));
    }

    @Test
    void theJsonGivesEachCallersCountAndTheLastOneIsTheRunsTotal() throws Exception {
        LabRun run = LabRun.of("scenario", "store-down", "--store", "redis", "--downstream-key", "on", "--latency-ms", "20",
                "--format", "json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode store = new ObjectMapper().readTree(run.out()).get(0);
        JsonNode callers = store.get("callers");
        assertThat(callers).hasSize(2);
        long first = callers.get(0).get("storageErrorsAfter").asLong();
        long retry = callers.get(1).get("storageErrorsAfter").asLong();
        assertThat(first).isPositive().isLessThan(retry);
        assertThat(retry).isEqualTo(store.get("storageErrors").asLong());
    }
}
