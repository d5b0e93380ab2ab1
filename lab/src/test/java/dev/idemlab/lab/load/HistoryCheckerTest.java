package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.provider.Charge;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker on a crafted history and ledger whose duplicates and disagreements are known. */
class HistoryCheckerTest {

    /** Key 1 charged three times (two duplicates), keys 2 and 3 once each. */
    private static final List<Charge> LEDGER = List.of(
            charge(1, 1), charge(2, 2), charge(3, 1), charge(4, 3), charge(5, 1));

    private static Charge charge(int number, int key) {
        return new Charge("ch_" + number, LoadKeys.orderId(key), LoadKeys.amount(key), LoadKeys.key(key));
    }

    /**
     * Seven requests: key 1's two callers agree on ch_1; key 2's callers split across ch_2 and ch_4
     * (which the ledger holds for key 3); key 3's caller holds ch_9, which the ledger never made; one
     * caller was told "in progress"; one got no answer.
     */
    private static ChargeHistory craftedHistory() {
        ChargeHistory history = new ChargeHistory();
        for (int i = 0; i < 7; i++) {
            history.invoked();
        }
        history.answered(1, "ch_1", Outcome.EXECUTED);
        history.answered(1, "ch_1", Outcome.WAITED);
        history.answered(2, "ch_2", Outcome.EXECUTED);
        history.answered(2, "ch_4", Outcome.REPLAYED);
        history.answered(3, "ch_9", Outcome.EXECUTED);
        history.failed(ErrorKind.IN_PROGRESS);
        return history;
    }

    private static IdempotencyStats stats(long reserveErrors) {
        Map<StorePhase, Long> errors = new EnumMap<>(StorePhase.class);
        errors.put(StorePhase.RESERVE, reserveErrors);
        return new IdempotencyStats(new EnumMap<>(Outcome.class), errors, 0, 0);
    }

    @Test
    void countsDuplicatesAndDisagreementsUnderAnExactlyOncePolicy() {
        LedgerCheck check = HistoryChecker.check(LabPolicy.WAIT, craftedHistory(), LEDGER, stats(2));

        assertThat(check.requests()).isEqualTo(7);
        assertThat(check.answered()).isEqualTo(5);
        assertThat(check.charges()).isEqualTo(5);
        assertThat(check.keysCharged()).isEqualTo(3);
        assertThat(check.duplicateCharges()).isEqualTo(2);
        assertThat(check.responsesNotInLedger()).isEqualTo(2);
        assertThat(check.splitKeys()).isEqualTo(1);
        assertThat(check.disagreements()).isEqualTo(3);
        assertThat(check.inProgress()).isEqualTo(1);
        assertThat(check.waits()).isEqualTo(1);
        assertThat(check.indeterminate()).isEqualTo(1);
        assertThat(check.storageErrors()).isEqualTo(2);
        assertThat(check.unattributedCharges()).isZero();
        assertThat(check.passed()).isFalse();
        assertThat(check.failures()).hasSize(3)
                .anySatisfy(line -> assertThat(line).contains("charged 2 duplicate(s)"))
                .anySatisfy(line -> assertThat(line).contains("1 key(s) gave callers different charges"))
                .anySatisfy(line -> assertThat(line).contains("2 response(s) name a charge the ledger does not hold"));
    }

    @Test
    void duplicatesUnderRunAreReportedButOnlyALedgerContradictionFails() {
        LedgerCheck check = HistoryChecker.check(LabPolicy.RUN, craftedHistory(), LEDGER, stats(0));

        assertThat(check.duplicateCharges()).isEqualTo(2);
        assertThat(check.disagreements()).isEqualTo(2);
        assertThat(check.failures()).singleElement().asString().contains("response(s) name a charge");
    }

    @Test
    void aCleanHistoryPassesUnderRaise() {
        ChargeHistory history = new ChargeHistory();
        List<Charge> ledger = List.of(charge(1, 7), charge(2, 8));
        for (int i = 0; i < 4; i++) {
            history.invoked();
        }
        history.answered(7, "ch_1", Outcome.EXECUTED);
        history.failed(ErrorKind.IN_PROGRESS);
        history.answered(8, "ch_2", Outcome.EXECUTED);
        history.answered(8, "ch_2", Outcome.REPLAYED);

        LedgerCheck check = HistoryChecker.check(LabPolicy.RAISE, history, ledger, stats(0));

        assertThat(check.passed()).isTrue();
        assertThat(check.keysCharged()).isEqualTo(2);
        assertThat(check.duplicateCharges()).isZero();
        assertThat(check.disagreements()).isZero();
        assertThat(check.indeterminate()).isZero();
    }

    @Test
    void aChargeWithoutAKeyOfTheLoadIsUnattributedNotADuplicate() {
        List<Charge> ledger = List.of(charge(1, 5), new Charge("ch_2", "order-x", 100, null));

        LedgerCheck check = HistoryChecker.check(LabPolicy.WAIT, new ChargeHistory(), ledger, stats(0));

        assertThat(check.charges()).isEqualTo(2);
        assertThat(check.unattributedCharges()).isEqualTo(1);
        assertThat(check.duplicateCharges()).isZero();
    }

    @Test
    void theHistoryKeepsOneEntryPerKeyHoweverManyResponses() {
        ChargeHistory history = new ChargeHistory();
        int keys = 50_000;
        for (int round = 0; round < 3; round++) {
            for (int key = 0; key < keys; key++) {
                history.answered(key, "ch_" + (key + 1), Outcome.REPLAYED);
            }
        }
        long[] responses = new long[1];
        int[] pairs = new int[1];
        history.forEachResponse((key, charge, count) -> {
            pairs[0]++;
            responses[0] += count;
            assertThat(charge).isEqualTo(key + 1);
        });

        assertThat(history.keysAnswered()).isEqualTo(keys);
        assertThat(pairs[0]).isEqualTo(keys);
        assertThat(responses[0]).isEqualTo(3L * keys);
        assertThat(history.splitKeys()).isZero();
    }
}
