package dev.idemlab.lab.load;

import dev.idemlab.lab.policy.LabPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What the {@link HistoryChecker} found when it laid one run's history against the provider's ledger.
 * Immutable and thread-safe.
 *
 * @param policy the in-flight policy the run used
 * @param requests requests sent, retries included
 * @param answered requests that got a charge back
 * @param keysCharged distinct keys the ledger charged
 * @param charges charges the ledger holds
 * @param duplicateCharges charges beyond one per key
 * @param responsesNotInLedger responses whose charge id the ledger does not hold for their key
 * @param splitKeys keys whose callers were given different charge ids
 * @param inProgress requests answered "in progress" (HTTP 409)
 * @param waits requests that waited for an identical in-flight request and replayed its charge
 * @param indeterminate requests without a definite answer
 * @param errors definite errors by kind; every kind is present
 * @param storageErrors storage errors the coordinator counted
 * @param unattributedCharges ledger charges without a key of the load or with an id not shaped {@code ch_N}
 */
public record LedgerCheck(LabPolicy policy, long requests, long answered, int keysCharged, int charges,
                          int duplicateCharges, long responsesNotInLedger, int splitKeys, long inProgress,
                          long waits, long indeterminate, Map<ErrorKind, Long> errors, long storageErrors,
                          int unattributedCharges) {

    public LedgerCheck {
        errors = Collections.unmodifiableMap(new EnumMap<>(errors));
    }

    /**
     * Responses that disagree with the ledger: those whose charge the ledger does not hold for
     * their key, and, under a policy that promises exactly-once, every key whose callers hold
     * different charge ids. (Under RUN, callers of one key agreeing is the result cache's promise;
     * the effect happening twice is counted in {@link #duplicateCharges}.)
     */
    public long disagreements() {
        return responsesNotInLedger + (policy.promisesExactlyOnce() ? splitKeys : 0);
    }

    /**
     * This check with {@code waits} as its waits: over HTTP a waited replay looks like any other replay
     * to its caller, so the service's coordinator counts them instead.
     */
    LedgerCheck withWaits(long waits) {
        return new LedgerCheck(policy, requests, answered, keysCharged, charges, duplicateCharges, responsesNotInLedger,
                splitKeys, inProgress, waits, indeterminate, errors, storageErrors, unattributedCharges);
    }

    /** Whether the run kept what its policy promises; see {@link #failures()}. */
    public boolean passed() {
        return failures().isEmpty();
    }

    /**
     * Why the run failed, one line each: a duplicate charge or callers split across charges under
     * a policy that promises exactly-once, or a response the ledger contradicts under any policy.
     * Duplicates under RUN are expected and are not failures.
     */
    public List<String> failures() {
        List<String> failures = new ArrayList<>();
        String name = policy.name().toLowerCase(java.util.Locale.ROOT);
        if (policy.promisesExactlyOnce() && duplicateCharges > 0) {
            failures.add(name + " promises exactly-once but charged " + duplicateCharges + " duplicate(s)"
                    + (storageErrors > 0 ? " (the store failed " + storageErrors + " time(s) and the coordinator"
                    + " failed open: it promises exactly-once only while the store is up)" : ""));
        }
        if (policy.promisesExactlyOnce() && splitKeys > 0) {
            failures.add(name + " promises exactly-once but " + splitKeys + " key(s) gave callers different charges");
        }
        if (responsesNotInLedger > 0) {
            failures.add(name + ": " + responsesNotInLedger + " response(s) name a charge the ledger does not hold for their key");
        }
        return failures;
    }
}
