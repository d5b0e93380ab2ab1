package dev.idemlab.lab.nemesis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run whose every call failed passed the checker: no charge, so no double charge, and every call was
 * answered (with an error). Through WebFlux on Spring 6.2 the filter failed each guarded request that
 * way and the run said "0 violations". A run must charge something, and answer with a charge, to pass.
 */
class ARunThatChargesNothingIsFlaggedTest {

    @Test
    void aRunWhoseEveryCallFailedIsFlagged() {
        HandBuiltHistory history = new HandBuiltHistory("memory");
        history.failedOpenAndThrew(1, 0, 10, 40);
        history.failedOpenAndThrew(2, 5, 15, 45);

        NemesisHistory built = history.build();

        assertThat(NemesisChecker.check(built).violations()).as("no rule of a key breaks").isEmpty();
        assertThat(NemesisChecker.vacuity(built)).singleElement().satisfies(violation -> {
            assertThat(violation.rule()).isEqualTo("nothing-charged");
            assertThat(violation.detail()).contains("2 calls sent, 2 failed, 0 charges");
            assertThat(violation.witness()).containsExactly("errors: {provider-timeout=2}");
        });
    }

    @Test
    void aRunThatChargedAndAnsweredWithTheChargeIsNotFlagged() {
        HandBuiltHistory history = new HandBuiltHistory("memory");
        history.failedOpenAndThrew(1, 0, 10, 40);
        history.holder(2, 5, 15, 45, dev.idemlab.idempotency.Outcome.EXECUTED);

        assertThat(NemesisChecker.vacuity(history.build())).isEmpty();
    }
}
