package dev.idemlab.peers;

import dev.idemlab.provider.ProviderTimeoutException;

import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What an exception tells the client that received it, read from the class names and messages along
 * its cause chain. The reading is generic (no library's class is named here): a client, or an HTTP
 * layer mapping exceptions to status codes, can act only on what the exception says.
 */
public enum ErrorSignal {

    /** The provider timed out (before charging): a retry is safe. */
    PROVIDER_TIMEOUT,
    /** The idempotency store could not be reached: nothing is known about the key (HTTP 503). */
    STORE_UNAVAILABLE,
    /** The key was used before with another request (HTTP 422). */
    KEY_REUSE,
    /** Another request with this key is running, or was accepted already (HTTP 409). */
    IN_PROGRESS_OR_CONFLICT,
    /** Nothing a client can act on: a generic failure (HTTP 500). */
    OTHER;

    private static final String[] STORE_WORDS = {"connection refused", "unable to connect", "cannot connect",
        "could not connect", "connectexception", "connectionfailure", "connectionexception", "closedchannel",
        "unavailable"};
    private static final String[] REUSE_WORDS = {"reuse", "fingerprint", "mismatch"};
    private static final String[] CONFLICT_WORDS = {"duplicate", "in progress", "in-progress", "inprogress",
        "conflict", "concurrent", "already"};

    /** Reads {@code error} and its causes; the most specific signal found wins. */
    public static ErrorSignal of(Throwable error) {
        StringBuilder text = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = error; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof ProviderTimeoutException) {
                return PROVIDER_TIMEOUT;
            }
            text.append(t.getClass().getSimpleName()).append(' ').append(t.getMessage()).append('\n');
        }
        String all = text.toString().toLowerCase(Locale.ROOT);
        if (containsAny(all, STORE_WORDS)) {
            return STORE_UNAVAILABLE;
        }
        if (containsAny(all, REUSE_WORDS)) {
            return KEY_REUSE;
        }
        if (containsAny(all, CONFLICT_WORDS)) {
            return IN_PROGRESS_OR_CONFLICT;
        }
        return OTHER;
    }

    private static boolean containsAny(String text, String[] words) {
        for (String word : words) {
            if (text.contains(word)) {
                return true;
            }
        }
        return false;
    }
}
