package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run through the sample checks the other half of the sample's contract from the ledger: every charge
 * carries the call's downstream key. A starter whose advice lost the call's context (the
 * starter-proceeds-without-context mutant) charges without one, which a run without a holder fault past
 * its lease never shows as a second charge.
 */
class SampleDownstreamKeyCheckTest {

    @Test
    void aChargeWithoutADownstreamKeyIsFlaggedOnItsKey() {
        List<Charge> ledger = List.of(
                new Charge("ch_1", LoadKeys.orderId(7), 107, "payments:client-a:load-7"),
                new Charge("ch_2", LoadKeys.orderId(8), 108, null),
                new Charge("ch_3", LoadKeys.orderId(9), 109, " "));

        List<Violation> violations = SamplePath.withoutDownstreamKey(ledger);

        assertThat(violations).extracting(Violation::rule).containsOnly("no-downstream-key");
        assertThat(violations).extracting(Violation::key).containsExactly(8, 9);
        assertThat(violations.get(0).detail()).contains("ch_2").contains(LoadKeys.orderId(8));
    }

    @Test
    void chargesThatEachCarryAKeyAreNotFlagged() {
        List<Charge> ledger = List.of(new Charge("ch_1", LoadKeys.orderId(7), 107, "k1"),
                new Charge("ch_2", LoadKeys.orderId(7), 107, "k1"));

        assertThat(SamplePath.withoutDownstreamKey(ledger)).isEmpty();
    }
}
