package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The ghost reservation from the ledger: a paused Redis lands a marker late; settled it replays, left alone it charges again. */
class GhostReservationCommandTest {

    @Test
    void aLateMarkerLeftAloneChargesTheRetryAgainAndASettledOneReplays() {
        LabRun run = LabRun.of("scenario", "ghost-reservation", "--store", "redis");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .containsPattern("policy=wait \\(late marker left alone\\):\\s+first call +-> the action ran anyway: ch_1"
                        + ".*\\s+retry +-> ch_2 +charges made=2")
                .containsPattern("policy=wait \\(late marker settled\\):\\s+first call +-> the action ran anyway: ch_1"
                        + ".*\\s+retry +-> replayed ch_1 +charges made=1");
    }

    @Test
    void onPostgresTheGhostCannotLandAndTheScenarioSaysWhy() {
        LabRun run = LabRun.of("check", "--stores", "postgres", "--scenarios", "ghost-reservation");
        assertThat(run.out()).contains("ghost-reservation").contains("statement and lock timeouts cancel a stalled reserve");
    }
}
