package dev.idemlab.provider;

import java.util.Objects;

/**
 * What a charge call came to: the charge, and whether it was made by this call or replayed from
 * an earlier call with the same downstream key.
 *
 * @param charge the charge as the ledger holds it
 * @param replayed {@code true} when no ledger entry was added because the key was already charged
 */
public record ChargeResult(Charge charge, boolean replayed) {

    public ChargeResult {
        Objects.requireNonNull(charge, "charge");
    }
}
