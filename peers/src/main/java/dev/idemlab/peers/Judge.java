package dev.idemlab.peers;

import dev.idemlab.provider.Charge;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The rules that turn a ledger and the callers' responses into a {@link Verdict}, one method per
 * experiment. Nothing here knows which library ran: only what the provider charged and what each
 * caller was told. Stateless and thread-safe.
 */
public final class Judge {

    /**
     * A verdict with its reason.
     *
     * @param verdict the verdict
     * @param reason one sentence saying why
     */
    public record Judgement(Verdict verdict, String reason) { }

    private Judge() { }

    /**
     * In-flight: callers send the same key and payload while the first is still inside the provider.
     * <ul>
     * <li>more than one ledger entry: {@link Verdict#DOUBLE_CHARGE};</li>
     * <li>no ledger entry: {@link Verdict#WRONG_ANSWER} (a request that should have charged did not);</li>
     * <li>one entry: {@link Verdict#ONE_CHARGE_CONSISTENT} when the first caller got that charge and
     *     every other caller got the same charge (the post's wait) or an error that says another
     *     request with the key is in progress or was accepted (its raise, a 409);
     *     {@link Verdict#WRONG_ANSWER} when any caller got {@code null}, something that is not a
     *     charge, another charge id, or an error that says neither.</li>
     * </ul>
     */
    public static Judgement inFlight(List<Call> calls, List<Charge> ledger) {
        if (ledger.size() > 1) {
            return new Judgement(Verdict.DOUBLE_CHARGE, ledger.size() + " charges for one request: " + ids(ledger));
        }
        if (ledger.isEmpty()) {
            return new Judgement(Verdict.WRONG_ANSWER, "nothing was charged; responses " + briefs(calls));
        }
        String id = ledger.get(0).id();
        if (!calls.get(0).response().isCharge(id)) {
            return new Judgement(Verdict.WRONG_ANSWER, "the first caller got " + calls.get(0).response().brief()
                    + ", not the charge " + id + " it made");
        }
        for (Call call : calls.subList(1, calls.size())) {
            Response r = call.response();
            boolean told = r.isCharge(id)
                    || (r.kind() == Response.Kind.ERROR && r.signal() == ErrorSignal.IN_PROGRESS_OR_CONFLICT);
            if (!told) {
                return new Judgement(Verdict.WRONG_ANSWER, "one charge, but caller " + call.caller() + " got "
                        + r.brief() + (r.kind() == Response.Kind.ERROR ? " (" + r.signal() + ")" : "")
                        + " while the charge " + id + " was in progress or done");
            }
        }
        return new Judgement(Verdict.ONE_CHARGE_CONSISTENT, "one charge " + id + "; every caller got it or was told "
                + "it was in progress");
    }

    /**
     * Key reuse: the same key and amount twice, one after the other, then the same key with another
     * amount. The first call should charge, the second replay that charge, the third be refused as a
     * reuse of the key (the post's 422).
     * <ul>
     * <li>two ledger entries for the first request's amount: {@link Verdict#DOUBLE_CHARGE} (the replay
     *     charged again);</li>
     * <li>an entry for the other amount: {@link Verdict#WRONG_ANSWER} (the reuse went undetected and
     *     became a new charge);</li>
     * <li>the first call not answered with its charge, the second not with the same charge id:
     *     {@link Verdict#WRONG_ANSWER};</li>
     * <li>the third answered with anything but an error that says the key was reused (a replay of the
     *     first charge for a request of another amount, {@code null}, a generic or duplicate error):
     *     {@link Verdict#WRONG_ANSWER};</li>
     * <li>otherwise {@link Verdict#ONE_CHARGE_CONSISTENT}.</li>
     * </ul>
     */
    public static Judgement keyReuse(List<Call> calls, List<Charge> ledger) {
        long first = calls.get(0).request().amount();
        List<Charge> same = ledger.stream().filter(c -> c.amount() == first).toList();
        if (same.size() > 1) {
            return new Judgement(Verdict.DOUBLE_CHARGE, "the identical second request charged again: " + ids(ledger));
        }
        if (ledger.size() > same.size()) {
            return new Judgement(Verdict.WRONG_ANSWER, "the reused key with another amount made a new charge: "
                    + ids(ledger) + "; the reuse went undetected");
        }
        if (same.isEmpty()) {
            return new Judgement(Verdict.WRONG_ANSWER, "nothing was charged; responses " + briefs(calls));
        }
        String id = same.get(0).id();
        Response r1 = calls.get(0).response();
        Response r2 = calls.get(1).response();
        Response r3 = calls.get(2).response();
        if (!r1.isCharge(id)) {
            return new Judgement(Verdict.WRONG_ANSWER, "the first call got " + r1.brief() + ", not " + id);
        }
        if (!r2.isCharge(id)) {
            return new Judgement(Verdict.WRONG_ANSWER, "the identical retry got " + r2.brief() + " instead of the "
                    + "replay of " + id);
        }
        if (r3.kind() == Response.Kind.ERROR && r3.signal() == ErrorSignal.KEY_REUSE) {
            return new Judgement(Verdict.ONE_CHARGE_CONSISTENT, "one charge " + id + ", replayed; the other amount "
                    + "was refused as key reuse");
        }
        return new Judgement(Verdict.WRONG_ANSWER, "the request with another amount got " + r3.brief()
                + (r3.kind() == Response.Kind.ERROR ? " (" + r3.signal() + ")" : "")
                + ": the reuse of the key went undetected");
    }

    /**
     * Provider timeout: the provider fails the first call before charging; the client retries with
     * the same key.
     * <ul>
     * <li>more than one ledger entry: {@link Verdict#DOUBLE_CHARGE};</li>
     * <li>the first call not ending in an error: {@link Verdict#WRONG_ANSWER} (the client was not told
     *     its charge failed);</li>
     * <li>no ledger entry: {@link Verdict#WRONG_ANSWER} (the failure was remembered and the retry
     *     refused or answered without charging);</li>
     * <li>one entry and the retry answered with it: {@link Verdict#ONE_CHARGE_CONSISTENT}, otherwise
     *     {@link Verdict#WRONG_ANSWER}.</li>
     * </ul>
     */
    public static Judgement providerTimeout(List<Call> calls, List<Charge> ledger) {
        if (ledger.size() > 1) {
            return new Judgement(Verdict.DOUBLE_CHARGE, ledger.size() + " charges: " + ids(ledger));
        }
        Response first = calls.get(0).response();
        Response retry = calls.get(1).response();
        if (first.kind() != Response.Kind.ERROR) {
            return new Judgement(Verdict.WRONG_ANSWER, "the call the provider failed got " + first.brief());
        }
        if (ledger.isEmpty()) {
            return new Judgement(Verdict.WRONG_ANSWER, "the retry did not charge and got " + retry.brief()
                    + ": the failure was remembered");
        }
        String id = ledger.get(0).id();
        if (!retry.isCharge(id)) {
            return new Judgement(Verdict.WRONG_ANSWER, "the retry charged " + id + " but got " + retry.brief());
        }
        return new Judgement(Verdict.ONE_CHARGE_CONSISTENT, "the failure was not cached: the retry charged " + id);
    }

    /**
     * Store down: the store's server stopped after the library started; one caller charges.
     * <ul>
     * <li>more than one ledger entry: {@link Verdict#DOUBLE_CHARGE};</li>
     * <li>one entry and the caller got it: {@link Verdict#ONE_CHARGE_CONSISTENT} (fail open, the post's
     *     choice); one entry and anything else: {@link Verdict#WRONG_ANSWER} (charged, but the client is
     *     told otherwise and will retry);</li>
     * <li>no entry and an error that says the store is unavailable:
     *     {@link Verdict#ONE_CHARGE_CONSISTENT} (fail closed: nothing ran and the client was told so);
     *     no entry and anything else: {@link Verdict#WRONG_ANSWER}.</li>
     * </ul>
     */
    public static Judgement storeDown(List<Call> calls, List<Charge> ledger) {
        if (ledger.size() > 1) {
            return new Judgement(Verdict.DOUBLE_CHARGE, ledger.size() + " charges: " + ids(ledger));
        }
        Response r = calls.get(0).response();
        if (ledger.size() == 1) {
            String id = ledger.get(0).id();
            return r.isCharge(id)
                    ? new Judgement(Verdict.ONE_CHARGE_CONSISTENT, "fail open: the charge ran and the caller got " + id)
                    : new Judgement(Verdict.WRONG_ANSWER, "the charge " + id + " ran but the caller got " + r.brief());
        }
        if (r.kind() == Response.Kind.ERROR && r.signal() == ErrorSignal.STORE_UNAVAILABLE) {
            return new Judgement(Verdict.ONE_CHARGE_CONSISTENT, "fail closed: nothing charged and the caller got "
                    + r.brief() + ", which says the store is unreachable");
        }
        return new Judgement(Verdict.WRONG_ANSWER, "nothing charged and the caller got "
                + (r.kind() == Response.Kind.ERROR ? r.toString() : r.brief()));
    }

    private static String ids(List<Charge> ledger) {
        return ledger.stream().map(Charge::id).collect(Collectors.joining(", ", "[", "]"));
    }

    private static String briefs(List<Call> calls) {
        return calls.stream().map(c -> c.response().brief()).collect(Collectors.joining(", ", "[", "]"));
    }
}
