package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.provider.Charge;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Lays a load run's {@link ChargeHistory} against the provider's ledger, the ground truth: how many
 * keys were charged, how many charges went beyond one per key, and which responses the ledger
 * contradicts. Keys come from {@link Charge#idempotencyKey()} or, where the provider was passed a key
 * derived from the load's (the demo API behind the HTTP filter passes the request's downstream key),
 * from the charge's order id, which names the load's key as well; charge numbers come from the
 * provider's {@code ch_N} ids.
 *
 * <p>Stateless and thread-safe. Memory: one int per charge while it checks.
 */
public final class HistoryChecker {

    private HistoryChecker() { }

    /**
     * Checks one run.
     *
     * @param policy the policy the run used
     * @param history what its callers sent and got; recording must have stopped
     * @param ledger the provider's ledger after the run
     * @param stats the coordinator's counters after the run
     * @return the findings
     */
    public static LedgerCheck check(LabPolicy policy, ChargeHistory history, List<Charge> ledger,
                                    IdempotencyStats stats) {
        int[] keyOfCharge = keyOfChargeNumber(ledger);
        int[] chargedKeys = new int[ledger.size()];
        int attributed = 0;
        for (Charge charge : ledger) {
            int key = keyOf(charge);
            if (key >= 0 && LoadKeys.chargeNumber(charge.id()) >= 0) {
                chargedKeys[attributed++] = key;
            }
        }
        int keysCharged = distinct(chargedKeys, attributed);
        long[] notInLedger = new long[1];
        history.forEachResponse((key, chargeNumber, responses) -> {
            boolean held = chargeNumber >= 0 && chargeNumber < keyOfCharge.length && keyOfCharge[chargeNumber] == key;
            if (!held) {
                notInLedger[0] += responses;
            }
        });
        Map<ErrorKind, Long> errors = new EnumMap<>(ErrorKind.class);
        for (ErrorKind kind : ErrorKind.values()) {
            errors.put(kind, history.errors(kind));
        }
        return new LedgerCheck(policy, history.invocations(), history.answers(), keysCharged, ledger.size(),
                attributed - keysCharged, notInLedger[0], history.splitKeys(), history.errors(ErrorKind.IN_PROGRESS),
                history.answers(Outcome.WAITED), history.indeterminate(), errors, stats.totalStorageErrors(),
                ledger.size() - attributed);
    }

    /** Index N holds the key index charge {@code ch_N} was made for, or -1. */
    private static int[] keyOfChargeNumber(List<Charge> ledger) {
        int highest = 0;
        for (Charge charge : ledger) {
            highest = Math.max(highest, LoadKeys.chargeNumber(charge.id()));
        }
        int[] keyOfCharge = new int[highest + 1];
        Arrays.fill(keyOfCharge, -1);
        for (Charge charge : ledger) {
            int number = LoadKeys.chargeNumber(charge.id());
            if (number >= 0) {
                keyOfCharge[number] = keyOf(charge);
            }
        }
        return keyOfCharge;
    }

    /** The load's key index {@code charge} was made for, or -1. */
    private static int keyOf(Charge charge) {
        int key = LoadKeys.index(charge.idempotencyKey());
        return key >= 0 ? key : LoadKeys.indexOfOrder(charge.orderId());
    }

    private static int distinct(int[] values, int length) {
        Arrays.sort(values, 0, length);
        int distinct = 0;
        for (int i = 0; i < length; i++) {
            if (i == 0 || values[i] != values[i - 1]) {
                distinct++;
            }
        }
        return distinct;
    }
}
