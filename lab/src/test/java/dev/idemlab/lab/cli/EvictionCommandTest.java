package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Eviction from the ledger: allkeys-lru loses the completed record and charges again, noeviction keeps it. */
class EvictionCommandTest {

    @Test
    void anEvictingRedisChargesTheRetryAgainAndNoevictionReplaysIt() {
        LabRun run = LabRun.of("scenario", "eviction", "--store", "redis", "--latency-ms", "20");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("maxmemory-policy allkeys-lru at start and warned that it can evict records; under pressure "
                        + "the record was evicted")
                .contains("retry        -> ch_2   charges made=2")
                .contains("maxmemory-policy noeviction at start and did not warn; under pressure the record was kept")
                .contains("retry        -> replayed ch_1   charges made=1");
    }

    @Test
    void theGateHoldsBothVariantsToTheirLedger() {
        LabRun run = LabRun.of("check", "--stores", "redis", "--scenarios", "eviction");
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(run.out()).containsPattern("PASS redis +eviction/wait allkeys-lru .*charges made \\[ch_1, ch_2\\]")
                .containsPattern("PASS redis +eviction/wait noeviction .*charges made \\[ch_1\\]");
    }
}
