package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import dev.idemlab.provider.ProviderTimeoutException;

/**
 * The errors a caller of the load can get, by what they mean for the ledger. Each of these is a
 * definite answer: nothing was charged for this caller. An exception of any other type is an
 * indeterminate answer and is counted as such, never as one of these.
 */
public enum ErrorKind {
    /** An identical request was in flight and the policy is RAISE (HTTP 409). */
    IN_PROGRESS,
    /** The key was seen with another fingerprint (HTTP 422). */
    KEY_REUSE,
    /** The store failed and the coordinator fails closed (HTTP 503). */
    STORE_UNAVAILABLE,
    /** A replay found a result it could not return. */
    REPLAY_UNAVAILABLE,
    /** The provider timed out before charging. */
    PROVIDER_TIMEOUT;

    /** The kind of {@code error}, or {@code null} when it is none of these (an indeterminate answer). */
    public static ErrorKind of(Throwable error) {
        if (error instanceof IdempotencyInProgressException) {
            return IN_PROGRESS;
        }
        if (error instanceof IdempotencyKeyReuseException) {
            return KEY_REUSE;
        }
        if (error instanceof IdempotencyStoreUnavailableException) {
            return STORE_UNAVAILABLE;
        }
        if (error instanceof IdempotentReplayUnavailableException) {
            return REPLAY_UNAVAILABLE;
        }
        if (error instanceof ProviderTimeoutException) {
            return PROVIDER_TIMEOUT;
        }
        return null;
    }

    /** The name in reports: {@code in-progress}. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
