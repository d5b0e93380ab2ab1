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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A black-box check of an HTTP API that claims Idempotency-Key support
 * (draft-ietf-httpapi-idempotency-key-header-07): concurrent identical requests, a key reused with
 * another body, no key, a retry after success, a retry after a 5xx, keys of the longest accepted length
 * and one more (255 and 256 unless the API publishes its own; where it publishes that a key is a UUID, one key
 * of a UUID's length that is not one, every other key a random UUID),
 * the key's field in other syntaxes (a bare token, a List, two field lines, an empty String), one key
 * from two clients, a retry after an application 4xx, whether refusals are problem details or link the
 * documentation, whether a 409 carries Retry-After, and the expiry policy where the API publishes one
 * ({@link ExpiryPolicyCheck}).
 * Each check uses a key of its own, fresh in every run ({@link ProbeKeys}), so that a probe can be run
 * again on the same server. Each row says whose rule it checks: the draft's (with its section), common practice, or
 * this lab's own (no key is 400 only where the API requires one; a 5xx the draft lets be stored; keys
 * up to 255 characters), and a server that follows the draft where this lab is stricter gets a note,
 * not a failure; or, where the user declares them ({@link PublishedRules}), the API's own published
 * rules, which those rows are then judged by ({@link RuleVerdicts}). Where the server offers {@code GET /ledger} the probe counts the
 * charges each key made, which is the only way to see a result cache charge twice behind identical
 * answers; where it does not, it says so. Used by one thread.
 */
public final class Probe {

    /** The rule a result cache breaks: it answers alike and charges again. */
    public static final String EXACTLY_ONCE = "exactly once under concurrency: a request whose key is in flight must "
            + "not run again (draft section 2.7: answer 409, or wait and replay)";

    private final ProbeSettings settings;
    private final ProbeClient client;
    private final RuleVerdicts verdicts;
    private final ProbeKeys keys;
    private boolean ledgerOffered;
    /** Every 400, 409 and 422 the checks got, for the row on how refusals explain themselves. */
    private final List<ProbeClient.Answer> refusals = new ArrayList<>();
    /** Every 409 the checks got, for the row on Retry-After. */
    private final List<ProbeClient.Answer> conflicts = new ArrayList<>();

    public Probe(ProbeSettings settings) {
        this.settings = settings;
        this.client = new ProbeClient(settings);
        this.verdicts = new RuleVerdicts(settings.rules());
        this.keys = new ProbeKeys(settings.rules().keyFormat());
    }

    /** Runs every check, in order. */
    public List<ProbeRow> run() throws IOException, InterruptedException {
        ledgerOffered = client.ledger().isPresent();
        List<ProbeRow> rows = new ArrayList<>();
        String concurrentKey = keys.of("concurrent");
        rows.add(concurrent(concurrentKey));
        rows.add(keyReuse(concurrentKey));
        rows.add(noKey());
        rows.add(retryAfterSuccess(keys.of("retry")));
        rows.add(keyValue(keys.of("retry")));
        rows.add(retryAfterServerError(keys.of("after-5xx")));
        if (settings.rules().keyFormat() == PublishedRules.KeyFormat.UUID) {
            rows.add(notAUuid());
        } else {
            rows.add(longKey(settings.rules().maxKeyLength()));
            rows.add(longKey(settings.rules().maxKeyLength() + 1));
        }
        rows.add(syntax("bare token", List.of(keys.of("bare")), true));
        rows.add(syntax("List", List.of("\"" + keys.of("list-a") + "\", \"" + keys.of("list-b") + "\""), false));
        rows.add(syntax("two field lines", List.of("\"" + keys.of("lines") + "\"", "\"" + keys.of("lines") + "\""), false));
        rows.add(syntax("empty String", List.of("\"\""), false));
        rows.add(scoping(keys.of("scope")));
        rows.add(applicationError(keys.of("4xx")));
        rows.add(refusalsExplained());
        rows.add(retryAfter());
        rows.add(new ExpiryPolicyCheck(client).run(keys.of("expiry")));
        return rows;
    }

    /** Whether the server offered {@code GET /ledger}. */
    public boolean ledgerOffered() {
        return ledgerOffered;
    }

    private ProbeRow concurrent(String key) throws IOException, InterruptedException {
        List<ProbeClient.Answer> answers = sendAtOnce(key, settings.concurrency());
        Map<Integer, Integer> statuses = new TreeMap<>();
        Set<String> bodies = new LinkedHashSet<>();
        Set<String> ids = new LinkedHashSet<>();
        for (ProbeClient.Answer answer : answers) {
            statuses.merge(answer.status(), 1, Integer::sum);
            noteRefusal(answer);
            if (answer.ok()) {
                bodies.add(answer.body());
                answer.resourceId().ifPresent(ids::add);
            }
        }
        Optional<Long> charges = charges(key);
        String got = concurrentGot(statuses, bodies, ids, charges);
        String check = "concurrent identical x" + settings.concurrency();
        String expected = verdicts.inFlightExpected();
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
        Optional<ProbeRow> published = verdicts.inFlight(check, got, statuses);
        if (published.isPresent()) {
            return published.get();
        }
        return charges.isPresent() ? ProbeRow.pass(check, expected, got)
                : new ProbeRow(check, expected, got + " (a result cache would pass this row)", ProbeRow.Verdict.NOTE, "");
    }

    private static String concurrentGot(Map<Integer, Integer> statuses, Set<String> bodies, Set<String> ids,
                                        Optional<Long> charges) {
        return statuses.entrySet().stream().map(e -> e.getValue() + "x" + e.getKey()).reduce((a, b) -> a + " " + b)
                .orElse("") + "; " + bodies.size() + " distinct 2xx bod" + (bodies.size() == 1 ? "y" : "ies") + "; "
                + ids.size() + " resource id" + (ids.size() == 1 ? "" : "s") + " " + ids + "; "
                + charges.map(n -> "ledger: " + n + " charge" + (n == 1 ? "" : "s")).orElse("no ledger offered");
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
        noteRefusal(answer);
        return ProbeRow.of(answer.status() == 422, "same key, another body", "422 (draft 2.7)", describe(answer),
                "a key reused with another payload is 422 (draft section 2.7)");
    }

    private ProbeRow noKey() throws IOException, InterruptedException {
        ProbeClient.Answer answer = client.send(null, ProbeSettings.FIRST_AMOUNT);
        noteRefusal(answer);
        return verdicts.noKey(answer);
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
        if (!client.failNextCharge()) {
            return new ProbeRow("retry after a 5xx", verdicts.serverErrorExpected(),
                    "the server offers no POST /faults to provoke a 5xx", ProbeRow.Verdict.SKIP, "");
        }
        ProbeClient.Answer failed = client.send(key, ProbeSettings.FIRST_AMOUNT);
        Optional<Long> afterFailure = charges(key);
        ProbeClient.Answer retry = client.send(key, ProbeSettings.FIRST_AMOUNT);
        Optional<Long> charges = charges(key);
        String got = describe(failed) + ", then " + describe(retry) + retry.replayed().map(v -> " marked replayed")
                .orElse("") + charges.map(n -> "; ledger: " + n).orElse("");
        return verdicts.retryAfterServerError(got, failed, retry, afterFailure, charges);
    }

    private ProbeRow longKey(int length) throws IOException, InterruptedException {
        return verdicts.keyOfLength(length, client.send(keys.ofLength(length), ProbeSettings.FIRST_AMOUNT));
    }

    /** Where the API publishes that a key is a UUID: one that is not must be refused. */
    private ProbeRow notAUuid() throws IOException, InterruptedException {
        ProbeClient.Answer answer = client.send(keys.notAUuid(), ProbeSettings.FIRST_AMOUNT);
        noteRefusal(answer);
        return verdicts.notAUuid(answer);
    }

    private void noteRefusal(ProbeClient.Answer answer) {
        if (answer.status() == 400 || answer.status() == 409 || answer.status() == 422) {
            refusals.add(answer);
        }
        if (answer.status() == 409) {
            conflicts.add(answer);
        }
    }

    /**
     * The key's field in a syntax other than one String item (draft section 2.1), sent twice with the same
     * body. Refused: as the draft says. Taken as a key (the second a replay of the first): a deviation,
     * only noted for a bare token (Stripe's API takes its keys so), a failure for anything else. Ignored
     * (both ran): noted, as RFC 8941 has a field that fails to parse ignored.
     */
    private ProbeRow syntax(String form, List<String> fieldLines, boolean deviationOnly)
            throws IOException, InterruptedException {
        String check = "key as " + form;
        String expected = "400 (draft 2.1: the key is one String item)";
        ProbeClient.Answer first = client.sendRaw(fieldLines, ProbeSettings.FIRST_AMOUNT, settings.token());
        noteRefusal(first);
        if (first.status() == 400) {
            return ProbeRow.pass(check, expected, describe(first));
        }
        if (!first.ok()) {
            return ProbeRow.fail(check, expected, describe(first), "a key field in the wrong syntax is a client "
                    + "error, 400 (draft section 2.1)");
        }
        Optional<Integer> before = ledgerSize();
        ProbeClient.Answer second = client.sendRaw(fieldLines, ProbeSettings.FIRST_AMOUNT, settings.token());
        Optional<Integer> after = ledgerSize();
        // With a ledger: whether the second ran is the ledger's to say, whatever its answer looked like.
        boolean replayed = before.isPresent() && after.isPresent() ? after.get().equals(before.get())
                : second.body().equals(first.body()) && first.resourceId().isPresent()
                        && first.resourceId().equals(second.resourceId());
        String got = describe(first) + ", then " + describe(second)
                + (after.isPresent() && before.isPresent() ? "; ledger: +" + (after.get() - before.get()) : "");
        if (!replayed) {
            return new ProbeRow(check, expected, got + ": the field was ignored, both ran without a key",
                    ProbeRow.Verdict.NOTE, "");
        }
        if (deviationOnly) {
            return new ProbeRow(check, expected, got + ": taken as the key, a deviation from draft 2.1 (as Stripe's "
                    + "API does)", ProbeRow.Verdict.NOTE, "");
        }
        return ProbeRow.fail(check, expected, got + ": taken as a key", form.equals("empty String")
                ? "an empty key is no key: taken as one, every client that sends it shares one record (draft 2.1)"
                : "a key is one String item: a " + form + " is no key (draft section 2.1)");
    }

    /**
     * One key from two clients (draft section 5): the second must run its own request, never get the
     * first one's answer, which would tell it a charge was made that never was.
     */
    private ProbeRow scoping(String key) throws IOException, InterruptedException {
        String check = "one key, two clients";
        String expected = "the second client's own result (draft 5: keys scoped per client)";
        if (settings.token() == null || settings.otherToken() == null) {
            return new ProbeRow(check, expected, "no two client credentials (--token, --other-token)",
                    ProbeRow.Verdict.SKIP, "");
        }
        ProbeClient.Answer first = client.sendRaw(List.of(quoted(key)), ProbeSettings.FIRST_AMOUNT, settings.token());
        Optional<Integer> before = ledgerSize();
        ProbeClient.Answer other = client.sendRaw(List.of(quoted(key)), ProbeSettings.FIRST_AMOUNT, settings.otherToken());
        Optional<Integer> after = ledgerSize();
        String got = describe(first) + " for " + settings.token() + ", then " + describe(other) + " for "
                + settings.otherToken() + (after.isPresent() && before.isPresent()
                        ? "; ledger: +" + (after.get() - before.get()) : "");
        if (other.ok() && before.isPresent() && after.isPresent() && after.get().equals(before.get())) {
            return ProbeRow.fail(check, expected, got + ": answered 2xx, and nothing was charged",
                    "a key is scoped per client: one client's key must not swallow another client's request, "
                            + "answered as done though it never ran (draft section 5)");
        }
        if (first.ok() && other.ok() && (other.body().equals(first.body())
                || first.resourceId().isPresent() && first.resourceId().equals(other.resourceId()))) {
            return ProbeRow.fail(check, expected, got + ": the other client got the first one's answer",
                    "a key is scoped per client: another client's request with it runs on its own, and never "
                            + "gets the first client's response (draft section 5)");
        }
        if (other.status() == 409 || other.status() == 422) {
            return new ProbeRow(check, expected, got + ": the first client's use of the key refused the second's "
                    + "request: keys are not scoped per client", ProbeRow.Verdict.NOTE, "");
        }
        return ProbeRow.of(first.ok() && other.ok(), check, expected, got,
                "each client's request with the key runs (draft section 5)");
    }

    /**
     * A request the application refuses (amount 0), sent again with the same key: the draft's section 2.6
     * has a retry get "the result of the previously completed operation, success or an error".
     */
    private ProbeRow applicationError(String key) throws IOException, InterruptedException {
        String check = "retry after an application 4xx";
        String expected = "the same 4xx replayed (draft 2.6)";
        ProbeClient.Answer first = client.send(key, 0);
        if (first.status() < 400 || first.status() >= 500) {
            return new ProbeRow(check, expected, describe(first) + ": the API did not refuse amount 0",
                    ProbeRow.Verdict.SKIP, "");
        }
        ProbeClient.Answer retry = client.send(key, 0);
        String got = describe(first) + ", then " + describe(retry) + retry.replayed().map(v -> " marked replayed").orElse("");
        if (retry.status() != first.status() || !retry.body().equals(first.body())) {
            return ProbeRow.fail(check, expected, got, "a retry after a completed request gets its result, an error "
                    + "too (draft section 2.6)");
        }
        return retry.replayed().isPresent() ? ProbeRow.pass(check, expected, got)
                : new ProbeRow(check, expected, got + ": not marked, so a replay cannot be told from a second run",
                        ProbeRow.Verdict.NOTE, "");
    }

    /** Whether the 400s, 409s and 422s the checks got are problem details or link the API's documentation. */
    private ProbeRow refusalsExplained() {
        String check = "refusals explained";
        String expected = "problem details or Link rel=\"describedby\" (draft 2.7's examples)";
        if (refusals.isEmpty()) {
            return new ProbeRow(check, expected, "no 400, 409 or 422 seen", ProbeRow.Verdict.SKIP, "");
        }
        long explained = refusals.stream().filter(ProbeClient.Answer::explained).count();
        String got = explained + " of " + refusals.size() + " refusals";
        return explained == refusals.size() ? ProbeRow.pass(check, expected, got)
                : new ProbeRow(check, expected, got + ": the others say nothing a client can look up",
                        ProbeRow.Verdict.NOTE, "");
    }

    /** Whether a 409 says when to retry. */
    private ProbeRow retryAfter() {
        String check = "409 with Retry-After";
        String expected = "Retry-After on 409 (common practice)";
        if (conflicts.isEmpty()) {
            return new ProbeRow(check, expected, "no 409 seen (the API waits, or runs again)", ProbeRow.Verdict.SKIP, "");
        }
        long with = conflicts.stream().filter(answer -> answer.retryAfter().isPresent()).count();
        String got = with + " of " + conflicts.size() + " 409s";
        return with == conflicts.size() ? ProbeRow.pass(check, expected, got)
                : new ProbeRow(check, expected, got + " said when to retry", ProbeRow.Verdict.NOTE, "");
    }

    private Optional<Integer> ledgerSize() throws InterruptedException {
        return client.ledger().map(JsonNode::size);
    }

    /**
     * Whether the server read the key as the String item's value (draft section 2.1), as the ledger shows
     * it passed downstream: not the field's raw text, quotes and all, which is another key than the same
     * key sent bare and makes the key's syntax part of the key.
     */
    private ProbeRow keyValue(String key) throws InterruptedException {
        String check = "key read as the String's value";
        String expected = "the key passed on without its quotes (draft 2.1)";
        Optional<JsonNode> ledger = client.ledger();
        if (ledger.isEmpty()) {
            return new ProbeRow(check, expected, "no ledger offered", ProbeRow.Verdict.SKIP, "");
        }
        long raw = 0;
        long value = 0;
        for (JsonNode charge : ledger.get()) {
            String passed = ProbeClient.requestKey(charge);
            raw += quoted(key).equals(passed) ? 1 : 0;
            value += key.equals(passed) ? 1 : 0;
        }
        if (raw == 0 && value == 0) {
            return new ProbeRow(check, expected, "the ledger names no key it was passed", ProbeRow.Verdict.SKIP, "");
        }
        String got = "ledger: " + (raw > 0 ? raw + " charge(s) under the key in quotes" : value + " under the key");
        return ProbeRow.of(raw == 0, check, expected, got, "the key is the String item's value, not the field's "
                + "text: quotes and parameters are syntax (draft section 2.1)");
    }

    private static String quoted(String key) {
        return "\"" + key + "\"";
    }

    private Optional<Long> charges(String key) throws InterruptedException {
        Optional<JsonNode> ledger = client.ledger();
        return ledger.map(json -> ProbeClient.chargesFor(json, key));
    }

    /** The answer's status, and the created resource's id on a 2xx. */
    static String describe(ProbeClient.Answer answer) {
        return answer.status() + answer.resourceId().filter(id -> answer.ok()).map(id -> " " + id).orElse("");
    }
}
