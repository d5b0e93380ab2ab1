package dev.idemlab.lab.probe;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * The rules an API publishes for its Idempotency-Key where it may choose its own: whether the key is
 * required, its format, how long it may be, whether a 5xx answer is stored, and what a request whose key is in
 * flight gets. Each one the user declares is what the probe judges that row by, labelled the API's
 * published rule; each one left undeclared is judged as before, by this lab's rule or what the draft
 * allows. Immutable and thread-safe.
 *
 * @param key whether the API requires a key, or {@link Key#UNDECLARED}
 * @param keyFormat the key's format: any, or a UUID
 * @param keyMaxLength the longest key the API accepts, or empty when it publishes none (then
 *     {@link #DEFAULT_KEY_MAX_LENGTH}, this lab's rule)
 * @param serverErrors whether the API stores a 5xx answer and replays it, or {@link ServerErrors#EITHER}
 * @param inFlight what a request gets while an identical one is in flight, or {@link InFlight#EITHER}
 */
public record PublishedRules(Key key, KeyFormat keyFormat, OptionalInt keyMaxLength, ServerErrors serverErrors,
                             InFlight inFlight) {

    /** The longest key this lab's own rule accepts, and the probe's length when the API publishes none. */
    public static final int DEFAULT_KEY_MAX_LENGTH = 255;
    /** The longest key length a user may declare. */
    public static final int MAX_KEY_MAX_LENGTH = 10_000;
    /** Nothing declared: every row judged as the lab and the draft have it. */
    public static final PublishedRules NONE = new PublishedRules(Key.UNDECLARED, KeyFormat.ANY, OptionalInt.empty(),
            ServerErrors.EITHER, InFlight.EITHER);

    /** What the API publishes on a request without a key. */
    public enum Key {
        /** Not declared: 400 expected, a 2xx noted as a key that is optional. */
        UNDECLARED,
        /** A request without a key is refused with 400. */
        REQUIRED,
        /** A request without a key runs as any other, 2xx. */
        OPTIONAL
    }

    /** The key format the API publishes. */
    public enum KeyFormat {
        /** Any key: the probe sends its own, naming the run and the check, and checks the key's length. */
        ANY,
        /**
         * A UUID in its canonical 36-character form: every key the probe sends is a random UUID, and one of
         * a UUID's length that is not a UUID must be refused with 400.
         */
        UUID
    }

    /** What the API publishes on a retry after a 5xx. */
    public enum ServerErrors {
        /** Not declared: replaying the 5xx or running again are both acceptable (draft section 2.6). */
        EITHER,
        /** The 5xx is stored: the retry gets it replayed, and charges nothing. */
        STORED,
        /** The 5xx is not stored: the retry runs again. */
        NOT_STORED
    }

    /** What the API publishes for a request whose key is in flight. */
    public enum InFlight {
        /** Not declared: 409 or waiting for the first one's answer are both acceptable. */
        EITHER,
        /** The request waits for the first one's answer and gets it. */
        WAIT,
        /** The request is refused with 409. */
        CONFLICT
    }

    /**
     * @throws NullPointerException when a component is null
     * @throws IllegalArgumentException when {@code keyMaxLength} is outside 1 to {@link #MAX_KEY_MAX_LENGTH},
     *     or given with {@link KeyFormat#UUID}, whose length is fixed
     */
    public PublishedRules {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(keyFormat, "keyFormat");
        Objects.requireNonNull(keyMaxLength, "keyMaxLength");
        Objects.requireNonNull(serverErrors, "serverErrors");
        Objects.requireNonNull(inFlight, "inFlight");
        keyMaxLength.ifPresent(length -> {
            if (length < 1 || length > MAX_KEY_MAX_LENGTH) {
                throw new IllegalArgumentException("the key's maximum length must be between 1 and "
                        + MAX_KEY_MAX_LENGTH + ", got " + length);
            }
        });
        if (keyFormat == KeyFormat.UUID && keyMaxLength.isPresent()) {
            throw new IllegalArgumentException("a UUID's length is fixed: no maximum key length goes with the UUID "
                    + "key format, got " + keyMaxLength.getAsInt());
        }
    }

    /** The longest key the probe expects accepted: the API's, or this lab's when it publishes none. */
    int maxKeyLength() {
        return keyMaxLength.orElse(DEFAULT_KEY_MAX_LENGTH);
    }
}
