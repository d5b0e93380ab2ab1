package dev.idemlab.lab.probe;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A black-box check of an HTTP API that claims Idempotency-Key support
 * (draft-ietf-httpapi-idempotency-key-header-07): concurrent identical requests, a key reused with
 * another body, no key, a retry after success, a retry after a 5xx, keys of 255 and 256 characters.
 * Each check uses a key of its own, fresh in every run, so that a probe can be run again on the same
 * server. Each row says whose rule it checks: the draft's (with its section), common practice, or
 * this lab's own (no key is 400 only where the API requires one; a 5xx the draft lets be stored; keys
 * up to 255 characters), and a server that follows the draft where this lab is stricter gets a note,
 * not a failure. Where the server offers {@code GET /ledger} the probe counts the
 * charges each key made, which is the only way to see a result cache charge twice behind identical
 * answers; where it does not, it says so. Used by one thread.
 */
public final class Probe {

    /** The rule a result cache breaks: it answers alike and charges again. */
    public static final String EXACTLY_ONCE = "exactly once under concurrency: a request whose key is in flight must "
            + "not run again (draft section 2.7: answer 409, or wait and replay)";

    private final ProbeSettings settings;
    private final ProbeClient client;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private boolean ledgerOffered;

    public Probe(ProbeSettings settings) {
        this.settings = settings;
        this.client = new ProbeClient(settings);
    }

    /** Runs every check, in order. */
    public List<ProbeRow> run() throws IOException, InterruptedException {
        ledgerOffered = client.ledger().isPresent();
        List<ProbeRow> rows = new ArrayList<>();
        String concurrentKey = key("concurrent");
        rows.add(concurrent(concurrentKey));
        rows.add(keyReuse(concurrentKey));
        rows.add(noKey());
        rows.add(retryAfterSuccess(key("retry")));
        rows.add(retryAfterServerError(key("after-5xx")));
        rows.add(longKey(255));
        rows.add(longKey(256));
        return rows;
    }

    /** Whether the server offered {@code GET /ledger}. */
    public boolean ledgerOffered() {
        return ledgerOffered;
    }

    private String key(String check) {
        return "probe-" + run + "-" + check;
    }

    /** A key of exactly {@code length} characters, this run's own, so that no two probes share one. */
    private String keyOfLength(int length) {
        String head = key("length-" + length + "-");
        return head.length() >= length ? head.substring(0, length) : head + "k".repeat(length - head.length());
    }

    private ProbeRow concurrent(String key) throws IOException, InterruptedException {
        List<ProbeClient.Answer> answers = sendAtOnce(key, settings.concurrency());
        Map<Integer, Integer> statuses = new TreeMap<>();
        Set<String> bodies = new LinkedHashSet<>();
        Set<String> ids = new LinkedHashSet<>();
        for (ProbeClient.Answer answer : answers) {
            statuses.merge(answer.status(), 1, Integer::sum);
            if (answer.ok()) {
                bodies.add(answer.body());
                answer.resourceId().ifPresent(ids::add);
            }
        }
        Optional<Long> charges = charges(key);
        String got = statuses.entrySet().stream().map(e -> e.getValue() + "x" + e.getKey()).reduce((a, b) -> a + " " + b)
                .orElse("") + "; " + bodies.size() + " distinct 2xx bod" + (bodies.size() == 1 ? "y" : "ies") + "; "
                + ids.size() + " resource id" + (ids.size() == 1 ? "" : "s") + " " + ids + "; "
                + charges.map(n -> "ledger: " + n + " charge" + (n == 1 ? "" : "s")).orElse("no ledger offered");
        String check = "concurrent identical x" + settings.concurrency();
        String expected = "one execution: 409 (draft 2.7), or 2xx alike (waiting and replaying: common practice)";
        boolean onlyOkOr409 = statuses.keySet().stream().allMatch(s -> (s >= 200 && s < 300) || s == 409);
        if (!onlyOkOr409 || bodies.isEmpty()) {
            return ProbeRow.fail(check, expected, got, "a concurrent identical request gets the first one's answer or 409");
        }
        if (charges.isPresent() && charges.get() > 1) {
            return ProbeRow.fail(check, expected, got, EXACTLY_ONCE);
        }
        if (bodies.size() > 1 || ids.size() > 1) {
            return ProbeRow.fail(check, expected, got, "identical requests with one key get one answer and one resource");
        }
        return charges.isPresent() ? ProbeRow.pass(check, expected, got)
                : new ProbeRow(check, expected, got + " (a result cache would pass this row)", ProbeRow.Verdict.NOTE, "");
    }

    private List<ProbeClient.Answer> sendAtOnce(String key, int count) throws IOException, InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch ready = new CountDownLatch(count);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ProbeClient.Answer>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return client.send(key, ProbeSettings.FIRST_AMOUNT);
                }));
            }
            ready.await();
            go.countDown();
            List<ProbeClient.Answer> answers = new ArrayList<>();
            for (Future<ProbeClient.Answer> future : futures) {
                answers.add(future.get());
            }
            return answers;
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private ProbeRow keyReuse(String key) throws IOException, InterruptedException {
        ProbeClient.Answer answer = client.send(key, ProbeSettings.FIRST_AMOUNT + 1);
        return ProbeRow.of(answer.status() == 422, "same key, another body", "422 (draft 2.7)", describe(answer),
                "a key reused with another payload is 422 (draft section 2.7)");
    }

    private ProbeRow noKey() throws IOException, InterruptedException {
        ProbeClient.Answer answer = client.send(null, ProbeSettings.FIRST_AMOUNT);
        String expected = "400 where the API requires a key (draft 2.7)";
        if (answer.ok()) {
            return new ProbeRow("no key", expected, describe(answer) + ": the key is optional on this API",
                    ProbeRow.Verdict.NOTE, "");
        }
        return ProbeRow.of(answer.status() == 400, "no key", expected, describe(answer),
                "a required key that is missing is 400 (draft section 2.7)");
    }

    private ProbeRow retryAfterSuccess(String key) throws IOException, InterruptedException {
        ProbeClient.Answer first = client.send(key, ProbeSettings.FIRST_AMOUNT);
        ProbeClient.Answer retry = client.send(key, ProbeSettings.FIRST_AMOUNT);
        Optional<Long> charges = charges(key);
        String got = describe(first) + ", then " + describe(retry) + (retry.body().equals(first.body())
                ? ", identical body" : ", another body") + retry.replayed().map(v -> ", marked replayed").orElse("")
                + charges.map(n -> "; ledger: " + n).orElse("");
        boolean passed = first.ok() && retry.status() == first.status() && retry.body().equals(first.body())
                && charges.map(n -> n == 1).orElse(true);
        return ProbeRow.of(passed, "retry after success", "same status, identical body, 1 charge (draft 2.6)", got,
                "a retry replays the original status and body and does not run again (draft section 2.6)");
    }

    private ProbeRow retryAfterServerError(String key) throws IOException, InterruptedException {
        String check = "retry after a 5xx";
        String expected = "5xx, then a fresh 2xx (this lab's rule; the draft, 2.6, lets the 5xx be replayed too)";
        if (!client.failNextCharge()) {
            return new ProbeRow(check, expected, "the server offers no POST /faults to provoke a 5xx",
                    ProbeRow.Verdict.SKIP, "");
        }
        ProbeClient.Answer failed = client.send(key, ProbeSettings.FIRST_AMOUNT);
        ProbeClient.Answer retry = client.send(key, ProbeSettings.FIRST_AMOUNT);
        Optional<Long> charges = charges(key);
        String got = describe(failed) + ", then " + describe(retry) + retry.replayed().map(v -> " marked replayed")
                .orElse("") + charges.map(n -> "; ledger: " + n).orElse("");
        if (failed.status() >= 500 && retry.status() == failed.status() && charges.map(n -> n == 0).orElse(true)) {
            // Section 2.6: a retry gets "the result of the previously completed operation, success or an error".
            return new ProbeRow(check, expected, got + ": the 5xx is stored and replayed, as the draft allows",
                    ProbeRow.Verdict.NOTE, "");
        }
        boolean passed = failed.status() >= 500 && retry.ok() && retry.replayed().isEmpty()
                && charges.map(n -> n == 1).orElse(true);
        return ProbeRow.of(passed, check, expected, got, "a retry after a 5xx charges at most once, and either "
                + "runs again or replays the 5xx (this lab's rule: a 5xx is not stored)");
    }

    private ProbeRow longKey(int length) throws IOException, InterruptedException {
        ProbeClient.Answer answer = client.send(keyOfLength(length), ProbeSettings.FIRST_AMOUNT);
        String check = "key of " + length + " characters";
        if (length <= 255) {
            String expected = "2xx (this lab's rule: keys up to 255 characters)";
            if (answer.status() >= 400 && answer.status() < 500) {
                return new ProbeRow(check, expected, describe(answer) + ": refused; the API may publish a stricter "
                        + "key format", ProbeRow.Verdict.NOTE, "");
            }
            return ProbeRow.of(answer.ok(), check, expected, describe(answer), "a key of 255 characters is accepted "
                    + "or refused as a client error, never a 5xx");
        }
        String expected = "400 (this lab's rule: longer than 255)";
        if (answer.status() == 400) {
            return ProbeRow.pass(check, expected, describe(answer));
        }
        if (answer.ok()) {
            return new ProbeRow(check, expected, describe(answer) + ": accepted, no 255 limit", ProbeRow.Verdict.NOTE, "");
        }
        return ProbeRow.fail(check, expected, describe(answer), "an overlong key is a client error, 400");
    }

    private Optional<Long> charges(String key) throws InterruptedException {
        Optional<JsonNode> ledger = client.ledger();
        return ledger.map(json -> ProbeClient.chargesFor(json, key));
    }

    private static String describe(ProbeClient.Answer answer) {
        return answer.status() + answer.resourceId().filter(id -> answer.ok()).map(id -> " " + id).orElse("");
    }
}
