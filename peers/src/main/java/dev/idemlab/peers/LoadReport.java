package dev.idemlab.peers;

/**
 * What a {@link PeerLoad} run did, checked against the provider's ledger. Immutable.
 *
 * @param peer the peer's name
 * @param version the library's version
 * @param callers callers per key
 * @param repetitions keys run (fewer than asked when the budget ran out)
 * @param requests calls made: {@code callers * repetitions}
 * @param charges ledger entries
 * @param duplicateCharges ledger entries beyond one per key
 * @param keysChargedMoreThanOnce keys with more than one ledger entry
 * @param keysNeverCharged keys with no ledger entry
 * @param consistent responses that are the key's first charge
 * @param otherCharge responses naming another charge of the key
 * @param nulls {@code null} responses
 * @param inProgressErrors errors that say another request with the key is running or was accepted
 * @param otherErrors any other error
 * @param otherObjects responses that are neither a charge nor {@code null}
 * @param elapsedMs how long the run took
 */
public record LoadReport(String peer, String version, int callers, int repetitions, long requests, long charges,
        long duplicateCharges, long keysChargedMoreThanOnce, long keysNeverCharged, long consistent, long otherCharge,
        long nulls, long inProgressErrors, long otherErrors, long otherObjects, long elapsedMs) {

    /** Duplicate charges per 100,000 requests. */
    public double duplicatesPer100k() {
        return requests == 0 ? 0 : duplicateCharges * 100_000.0 / requests;
    }

    /** One line for a table. */
    public String row() {
        return String.format("%-18s %d callers x %d keys = %d requests: %d charges, %d duplicate (%.0f per 100,000), "
                + "%d keys charged twice or more, %d never; responses: %d consistent, %d null, %d in-progress error, "
                + "%d other error, %d other charge, %d other object (%d ms)", peer, callers, repetitions, requests,
                charges, duplicateCharges, duplicatesPer100k(), keysChargedMoreThanOnce, keysNeverCharged, consistent,
                nulls, inProgressErrors, otherErrors, otherCharge, otherObjects, elapsedMs);
    }
}
