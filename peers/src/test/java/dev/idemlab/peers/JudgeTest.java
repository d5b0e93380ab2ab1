package dev.idemlab.peers;

import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ProviderTimeoutException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The verdict rules on hand-made ledgers and responses: the post's three rows and their cousins. */
class JudgeTest {

    private static final ChargeRequest TEN = new ChargeRequest("k", "o", 10);
    private static final ChargeRequest FIVE = new ChargeRequest("k", "o", 5);

    private static Call call(String caller, ChargeRequest request, Response response) {
        return new Call(caller, request, 0, 1, response);
    }

    private static Response charge(String id) {
        return Response.of(new ChargeReceipt(id, "o", 10));
    }

    private static List<Charge> ledger(long... amounts) {
        return java.util.stream.IntStream.range(0, amounts.length)
                .mapToObj(i -> new Charge("ch_" + (i + 1), "o", amounts[i], "k")).toList();
    }

    @Test
    void theResultCacheRowIsADoubleChargeThoughBothCallersGotCh1() {
        var calls = List.of(call("A", TEN, charge("ch_1")), call("B", TEN, charge("ch_1")));

        assertThat(Judge.inFlight(calls, ledger(10, 10)).verdict()).isEqualTo(Verdict.DOUBLE_CHARGE);
    }

    @Test
    void waitAndRaiseRowsAreConsistent() {
        var waited = List.of(call("A", TEN, charge("ch_1")), call("B", TEN, charge("ch_1")));
        var raised = List.of(call("A", TEN, charge("ch_1")),
                call("B", TEN, Response.error(new IllegalStateException("request already in progress"))));

        assertThat(Judge.inFlight(waited, ledger(10)).verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        assertThat(Judge.inFlight(raised, ledger(10)).verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
    }

    @Test
    void nullOrAGenericErrorForTheRetryIsAWrongAnswer() {
        var nulled = List.of(call("A", TEN, charge("ch_1")), call("B", TEN, Response.of(null)));
        var generic = List.of(call("A", TEN, charge("ch_1")),
                call("B", TEN, Response.error(new IllegalStateException("boom"))));

        assertThat(Judge.inFlight(nulled, ledger(10)).verdict()).isEqualTo(Verdict.WRONG_ANSWER);
        assertThat(Judge.inFlight(generic, ledger(10)).verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void keyReuseIsConsistentOnlyWhenTheOtherAmountIsRefusedAsReuse() {
        Response reuse = Response.error(new IllegalArgumentException("key reused with another fingerprint"));
        var refused = List.of(call("A", TEN, charge("ch_1")), call("B", TEN, charge("ch_1")), call("C", FIVE, reuse));
        var replayed = List.of(call("A", TEN, charge("ch_1")), call("B", TEN, charge("ch_1")),
                call("C", FIVE, charge("ch_1")));

        assertThat(Judge.keyReuse(refused, ledger(10)).verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        assertThat(Judge.keyReuse(replayed, ledger(10)).verdict()).isEqualTo(Verdict.WRONG_ANSWER);
        assertThat(Judge.keyReuse(replayed, ledger(10, 5)).verdict()).isEqualTo(Verdict.WRONG_ANSWER);
        assertThat(Judge.keyReuse(replayed, ledger(10, 10)).verdict()).isEqualTo(Verdict.DOUBLE_CHARGE);
    }

    @Test
    void aRememberedFailureIsAWrongAnswer() {
        Response timedOut = Response.error(new ProviderTimeoutException("o"));
        var retried = List.of(call("A", TEN, timedOut), call("A-retry", TEN, charge("ch_1")));
        var refused = List.of(call("A", TEN, timedOut),
                call("A-retry", TEN, Response.error(new IllegalStateException("duplicate message"))));

        assertThat(Judge.providerTimeout(retried, ledger(10)).verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        assertThat(Judge.providerTimeout(refused, ledger()).verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void storeDownFailOpenAndFailClosedAreBothConsistent() {
        var open = List.of(call("A", TEN, charge("ch_1")));
        var closed = List.of(call("A", TEN, Response.error(
                new IllegalStateException("Unable to connect to Redis", new java.net.ConnectException("refused")))));
        var lied = List.of(call("A", TEN, Response.error(new IllegalStateException("boom"))));

        assertThat(Judge.storeDown(open, ledger(10)).verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        assertThat(Judge.storeDown(closed, ledger()).verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        assertThat(Judge.storeDown(lied, ledger(10)).verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }
}
