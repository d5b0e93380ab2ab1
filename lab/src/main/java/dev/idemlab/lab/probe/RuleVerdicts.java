package dev.idemlab.lab.probe;

import java.util.Map;
import java.util.Optional;

/**
 * The verdicts of the rows whose rule an API may publish for itself (no key, the key's format and length, a retry
 * after a 5xx, a request in flight): by the rule the user declared, labelled the API's published rule,
 * else as this lab's rule or the draft has it, where a server that follows the draft gets a note, not a
 * failure. The probe sends; this judges what came back. Immutable and thread-safe.
 */
final class RuleVerdicts {

    private static final String PUBLISHED = "the API's published rule";

    private final PublishedRules rules;

    RuleVerdicts(PublishedRules rules) {
        this.rules = rules;
    }

    /** The row on a request without a key. */
    ProbeRow noKey(ProbeClient.Answer answer) {
        String check = "no key";
        String got = Probe.describe(answer);
        return switch (rules.key()) {
            case REQUIRED -> ProbeRow.of(answer.status() == 400, check, "400 (" + PUBLISHED + ": a key is required; "
                    + "draft 2.7)", got, "a request without a key is 400 where the key is required (" + PUBLISHED
                    + "; draft section 2.7)");
            case OPTIONAL -> ProbeRow.of(answer.ok(), check, "2xx (" + PUBLISHED + ": the key is optional)", got,
                    "a request without a key runs as any other where the key is optional (" + PUBLISHED + ")");
            case UNDECLARED -> answer.ok()
                    ? new ProbeRow(check, "400 where the API requires a key (draft 2.7)", got + ": the key is optional "
                            + "on this API", ProbeRow.Verdict.NOTE, "")
                    : ProbeRow.of(answer.status() == 400, check, "400 where the API requires a key (draft 2.7)", got,
                            "a required key that is missing is 400 (draft section 2.7)");
        };
    }

    /** The row on a key of {@code length} characters: accepted up to the longest allowed, 400 beyond. */
    ProbeRow keyOfLength(int length, ProbeClient.Answer answer) {
        int max = rules.maxKeyLength();
        boolean declared = rules.keyMaxLength().isPresent();
        String whose = declared ? PUBLISHED : "this lab's rule";
        String check = "key of " + length + " characters";
        String got = Probe.describe(answer);
        if (length <= max) {
            String expected = "2xx (" + whose + ": keys up to " + max + " characters)";
            if (declared) {
                return ProbeRow.of(answer.ok(), check, expected, got, "a key of " + length + " characters is "
                        + "accepted where keys may be up to " + max + " long (" + PUBLISHED + ")");
            }
            if (answer.status() >= 400 && answer.status() < 500) {
                return new ProbeRow(check, expected, got + ": refused; the API may publish a stricter key format "
                        + "(--key-max-length)", ProbeRow.Verdict.NOTE, "");
            }
            return ProbeRow.of(answer.ok(), check, expected, got, "a key of " + length + " characters is accepted "
                    + "or refused as a client error, never a 5xx");
        }
        String expected = "400 (" + whose + ": longer than " + max + ")";
        if (answer.status() == 400) {
            return ProbeRow.pass(check, expected, got);
        }
        if (answer.ok() && !declared) {
            return new ProbeRow(check, expected, got + ": accepted, no " + max + " limit", ProbeRow.Verdict.NOTE, "");
        }
        return ProbeRow.fail(check, expected, got, "a key longer than " + max + " characters is a client error, 400"
                + (declared ? " (" + PUBLISHED + ")" : ""));
    }

    /**
     * The row on a key of a UUID's length that is not a UUID, where the API publishes that a key is one: it
     * replaces the rows on the key's length, which a UUID's fixed length leaves nothing to say about.
     */
    ProbeRow notAUuid(ProbeClient.Answer answer) {
        String check = "key not a UUID (36 characters)";
        String expected = "400 (" + PUBLISHED + ": the key is a UUID)";
        String got = Probe.describe(answer) + (answer.ok() ? ": accepted" : "");
        return ProbeRow.of(answer.status() == 400, check, expected, got, "a key that is not a UUID is a client "
                + "error, 400 (" + PUBLISHED + ": the key is a UUID)");
    }

    /** What the row on a retry after a 5xx expects. */
    String serverErrorExpected() {
        return switch (rules.serverErrors()) {
            case STORED -> "the same 5xx replayed, no new charge (" + PUBLISHED + ": a 5xx is stored)";
            case NOT_STORED -> "5xx, then a fresh 2xx, 1 charge (" + PUBLISHED + ": a 5xx is not stored)";
            case EITHER -> "5xx, then a fresh 2xx (this lab's rule; the draft, 2.6, lets the 5xx be replayed too)";
        };
    }

    /**
     * The row on a retry after a 5xx: whichever the API publishes, at most one charge.
     *
     * @param afterFailure the key's charges after the 5xx, where the server offers a ledger
     * @param afterRetry the key's charges after the retry, likewise
     */
    ProbeRow retryAfterServerError(String got, ProbeClient.Answer failed, ProbeClient.Answer retry,
                                   Optional<Long> afterFailure, Optional<Long> afterRetry) {
        String check = "retry after a 5xx";
        String expected = serverErrorExpected();
        if (afterRetry.isEmpty()) {
            got = got + " (no ledger: charges not checked)";
        }
        boolean replayed = failed.status() >= 500 && retry.status() == failed.status()
                && afterRetry.equals(afterFailure) && afterRetry.map(n -> n <= 1).orElse(true);
        boolean ranAgain = failed.status() >= 500 && retry.ok() && retry.replayed().isEmpty()
                && afterRetry.map(n -> n == 1).orElse(true);
        return switch (rules.serverErrors()) {
            case STORED -> ProbeRow.of(replayed, check, expected, got, "a 5xx is stored: the retry after it gets the "
                    + "same 5xx replayed and charges nothing new, at most once in all (" + PUBLISHED + ")");
            case NOT_STORED -> ProbeRow.of(ranAgain, check, expected, got, "a 5xx is not stored: the retry after it "
                    + "runs again and charges once (" + PUBLISHED + ")");
            // Section 2.6: a retry gets "the result of the previously completed operation, success or an error".
            case EITHER -> replayed ? new ProbeRow(check, expected, got + ": the 5xx is stored and replayed, as the "
                    + "draft allows", ProbeRow.Verdict.NOTE, "")
                    : ProbeRow.of(ranAgain, check, expected, got, "a retry after a 5xx charges at most once, and "
                            + "either runs again or replays the 5xx (this lab's rule: a 5xx is not stored)");
        };
    }

    /** What the row on concurrent identical requests expects. */
    String inFlightExpected() {
        return switch (rules.inFlight()) {
            case WAIT -> "one execution, every answer the first one's 2xx (" + PUBLISHED + ": a duplicate waits)";
            case CONFLICT -> "one execution, the duplicates 409 (" + PUBLISHED + ": 409; draft 2.7)";
            case EITHER -> "one execution: 409 (draft 2.7), or 2xx alike (waiting and replaying: common practice)";
        };
    }

    /**
     * The failure, if any, of concurrent identical requests that ran once, answered alike, by the in-flight
     * rule the API publishes. Under 409, no 409 at all means the duplicates waited (or each came after the
     * first had finished, which identical requests sent at once to a slow enough route do not).
     *
     * @param statuses how many answers got each status
     */
    Optional<ProbeRow> inFlight(String check, String got, Map<Integer, Integer> statuses) {
        return switch (rules.inFlight()) {
            case WAIT -> statuses.containsKey(409) ? Optional.of(ProbeRow.fail(check, inFlightExpected(), got,
                    "a request whose key is in flight waits for the first one's answer, never 409 (" + PUBLISHED + ")"))
                    : Optional.empty();
            case CONFLICT -> statuses.containsKey(409) ? Optional.empty() : Optional.of(ProbeRow.fail(check,
                    inFlightExpected(), got + ": no 409", "a request whose key is in flight is refused with 409 ("
                            + PUBLISHED + "; draft section 2.7)"));
            case EITHER -> Optional.empty();
        };
    }
}
