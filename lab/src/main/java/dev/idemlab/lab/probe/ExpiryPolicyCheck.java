package dev.idemlab.lab.probe;

import dev.idemlab.idempotency.servlet.headers.ExpiryPolicyHeader;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The probe's row on the expiry policy an API publishes (draft section 2.3 asks a resource to publish
 * how long its keys last): where the first answer carries {@value ExpiryPolicyHeader#NAME}, the header
 * must be well-formed (an RFC 8941 Dictionary with {@code ttl} and {@code lease} in seconds), keep a
 * key at least as long as a lease (else a record could expire while its request may still be running,
 * and a retry then runs it again), and hold: a retry sent within the published lifetime replays. An API
 * that publishes no such header is skipped, not failed: the draft leaves the form to the API's
 * documentation. Used by one thread.
 */
final class ExpiryPolicyCheck {

    static final String CHECK = "expiry policy published";
    static final String EXPECTED = "Idempotency-Policy well-formed, ttl >= lease, a retry within ttl replays "
            + "(draft 2.3)";

    private final ProbeClient client;

    ExpiryPolicyCheck(ProbeClient client) {
        this.client = client;
    }

    /** Sends {@code key}'s first request and a retry, and judges the policy the answers published. */
    ProbeRow run(String key) throws IOException, InterruptedException {
        long sentAt = System.nanoTime();
        ProbeClient.Answer first = client.send(key, ProbeSettings.FIRST_AMOUNT);
        Optional<String> header = first.expiryPolicy();
        if (header.isEmpty()) {
            return new ProbeRow(CHECK, EXPECTED, Probe.describe(first) + " without Idempotency-Policy: the API "
                    + "publishes no expiry policy in a header", ProbeRow.Verdict.SKIP, "");
        }
        ExpiryPolicyHeader.Policy policy;
        try {
            policy = ExpiryPolicyHeader.parse(header.get());
        } catch (IllegalArgumentException e) {
            return ProbeRow.fail(CHECK, EXPECTED, "Idempotency-Policy: " + header.get() + ": " + e.getMessage(),
                    "a published expiry policy is an RFC 8941 Dictionary with ttl and lease in seconds");
        }
        String got = "Idempotency-Policy: " + header.get();
        if (policy.ttl().compareTo(policy.lease()) < 0) {
            return ProbeRow.fail(CHECK, EXPECTED, got + ": the key's lifetime is shorter than a lease",
                    "a key is kept at least as long as a lease: else its record can expire while its request may "
                            + "still run, and a retry runs it again (draft 2.3)");
        }
        ProbeClient.Answer retry = client.send(key, ProbeSettings.FIRST_AMOUNT);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - sentAt);
        return judgeRetry(got, first, retry, policy, elapsed);
    }

    private static ProbeRow judgeRetry(String got, ProbeClient.Answer first, ProbeClient.Answer retry,
                                       ExpiryPolicyHeader.Policy policy, Duration elapsed) {
        String both = got + " on the first answer (" + Probe.describe(first) + ")";
        if (elapsed.compareTo(policy.ttl()) >= 0) {
            return new ProbeRow(CHECK, EXPECTED, both + "; the retry came after the published ttl, so it proves "
                    + "nothing", ProbeRow.Verdict.SKIP, "");
        }
        boolean replayed = first.ok() && retry.status() == first.status() && retry.body().equals(first.body());
        String retried = "; a retry within it: " + Probe.describe(retry)
                + (replayed ? ", identical body" : ", another answer")
                + retry.replayed().map(v -> ", marked replayed").orElse("")
                + (retry.expiryPolicy().equals(first.expiryPolicy()) ? ", the same policy" : ", policy "
                        + retry.expiryPolicy().orElse("absent"));
        return ProbeRow.of(replayed, CHECK, EXPECTED, both + retried,
                "a retry within the key's published lifetime replays the first answer (draft 2.3 and 2.6)");
    }
}
