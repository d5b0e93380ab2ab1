package dev.idemlab.lab.cli;

import dev.idemlab.lab.probe.PublishedRules;
import picocli.CommandLine.Option;

import java.util.Locale;
import java.util.OptionalInt;

/**
 * {@code lab probe}'s options that declare the rules the API publishes for itself, where it may choose
 * its own: the rows they touch are then judged by them, labelled the API's published rule.
 */
final class PublishedRuleOptions {

    @Option(names = "--key", paramLabel = "required|optional",
            description = "The API's published rule on a request without an Idempotency-Key: required (400 expected) "
                    + "or optional (the request must simply succeed, 2xx). Default: not declared; 400 expected, a 2xx "
                    + "only noted.")
    String key;

    @Option(names = "--key-format", paramLabel = "any|uuid", defaultValue = "any",
            description = "The key format the API publishes: any, or uuid (a UUID in its canonical 36-character form: "
                    + "every key the probe sends is a random UUID, and the rows on the key's length give way to one "
                    + "key of 36 characters that is not a UUID, which must be 400). Not with --key-max-length. "
                    + "Default: ${DEFAULT-VALUE}.")
    String keyFormat;

    @Option(names = "--key-max-length", paramLabel = "N",
            description = "The longest key the API publishes it accepts, 1 to " + PublishedRules.MAX_KEY_MAX_LENGTH
                    + ": the probe sends keys of N characters (must be accepted) and N+1 (must be 400). Default: "
                    + PublishedRules.DEFAULT_KEY_MAX_LENGTH + " and " + (PublishedRules.DEFAULT_KEY_MAX_LENGTH + 1)
                    + ", this lab's rule, where the API doing otherwise is only noted.")
    Integer keyMaxLength;

    @Option(names = "--stores-5xx", paramLabel = "yes|no",
            description = "Whether the API publishes that it stores a 5xx answer: yes (the retry after a 5xx must get "
                    + "the same 5xx replayed, no new charge) or no (the retry must run again); at most one charge "
                    + "either way. Default: either is acceptable, as the draft's section 2.6 allows.")
    String stores5xx;

    @Option(names = "--in-flight", paramLabel = "wait|409|either", defaultValue = "either",
            description = "What the API publishes for a request whose key is in flight: wait (every concurrent "
                    + "identical request gets the first one's answer, never 409), 409 (they are refused with 409) or "
                    + "either. Default: ${DEFAULT-VALUE}.")
    String inFlight;

    /** @throws UsageException naming the rule an option breaks */
    PublishedRules rules() {
        PublishedRules.KeyFormat format = keyFormat();
        if (format == PublishedRules.KeyFormat.UUID && keyMaxLength != null) {
            throw new UsageException("--key-format uuid cannot go with --key-max-length: a UUID's length is fixed "
                    + "(36 characters), so the API publishes no maximum of its own");
        }
        return new PublishedRules(key(), format, keyMaxLength(), serverErrors(), inFlight());
    }

    private PublishedRules.KeyFormat keyFormat() {
        return switch (keyFormat.toLowerCase(Locale.ROOT)) {
            case "any" -> PublishedRules.KeyFormat.ANY;
            case "uuid" -> PublishedRules.KeyFormat.UUID;
            default -> throw new UsageException("--key-format must be any or uuid (the key format the API "
                    + "publishes), got '" + keyFormat + "'");
        };
    }

    private PublishedRules.Key key() {
        if (key == null) {
            return PublishedRules.Key.UNDECLARED;
        }
        return switch (key.toLowerCase(Locale.ROOT)) {
            case "required" -> PublishedRules.Key.REQUIRED;
            case "optional" -> PublishedRules.Key.OPTIONAL;
            default -> throw new UsageException("--key must be required or optional (the API's published rule on a "
                    + "request without a key), got '" + key + "'");
        };
    }

    private OptionalInt keyMaxLength() {
        if (keyMaxLength == null) {
            return OptionalInt.empty();
        }
        if (keyMaxLength < 1 || keyMaxLength > PublishedRules.MAX_KEY_MAX_LENGTH) {
            throw new UsageException("--key-max-length must be between 1 and " + PublishedRules.MAX_KEY_MAX_LENGTH
                    + " (the longest key the API publishes it accepts), got " + keyMaxLength);
        }
        return OptionalInt.of(keyMaxLength);
    }

    private PublishedRules.ServerErrors serverErrors() {
        if (stores5xx == null) {
            return PublishedRules.ServerErrors.EITHER;
        }
        return switch (stores5xx.toLowerCase(Locale.ROOT)) {
            case "yes" -> PublishedRules.ServerErrors.STORED;
            case "no" -> PublishedRules.ServerErrors.NOT_STORED;
            default -> throw new UsageException("--stores-5xx must be yes or no (whether the API publishes that it "
                    + "stores a 5xx answer and replays it), got '" + stores5xx + "'");
        };
    }

    private PublishedRules.InFlight inFlight() {
        return switch (inFlight.toLowerCase(Locale.ROOT)) {
            case "wait" -> PublishedRules.InFlight.WAIT;
            case "409" -> PublishedRules.InFlight.CONFLICT;
            case "either" -> PublishedRules.InFlight.EITHER;
            default -> throw new UsageException("--in-flight must be wait, 409 or either (what the API publishes for "
                    + "a request whose key is in flight), got '" + inFlight + "'");
        };
    }
}
