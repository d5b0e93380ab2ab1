package dev.idemlab.lab.probe;

import java.net.URI;
import java.util.Objects;

/**
 * What {@code lab probe} checks and how. Immutable; the command line checks every rule first.
 *
 * @param url the route, absolute: {@code http://127.0.0.1:8080/orders/o-1/charge}
 * @param method the method that creates the resource: POST or PATCH
 * @param bodyTemplate the JSON body with an {@code {amount}} placeholder
 * @param token a bearer token naming the client, or {@code null} for none
 * @param concurrency how many identical requests the concurrent check sends at once
 * @param otherToken a second client's bearer token, for the scoping check, or {@code null} for none
 * @param rules the rules the API publishes where it may choose its own; {@link PublishedRules#NONE} for none
 */
public record ProbeSettings(URI url, String method, String bodyTemplate, String token, int concurrency,
                            String otherToken, PublishedRules rules) {

    /** The placeholder the body template must hold. */
    public static final String AMOUNT = "{amount}";
    /** The body the probe sends when none is given. */
    public static final String DEFAULT_BODY = "{\"amount\":" + AMOUNT + "}";
    /** The amount of every request but the key-reuse one. */
    static final long FIRST_AMOUNT = 10;

    public ProbeSettings {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(bodyTemplate, "bodyTemplate");
        Objects.requireNonNull(rules, "rules");
    }

    /** Settings with no published rule declared: each row judged by this lab's rule or the draft. */
    public ProbeSettings(URI url, String method, String bodyTemplate, String token, int concurrency,
                         String otherToken) {
        this(url, method, bodyTemplate, token, concurrency, otherToken, PublishedRules.NONE);
    }

    /** Settings without a second client: the scoping check is skipped. */
    public ProbeSettings(URI url, String method, String bodyTemplate, String token, int concurrency) {
        this(url, method, bodyTemplate, token, concurrency, null, PublishedRules.NONE);
    }

    /** The body with {@code amount} in place of the placeholder. */
    String body(long amount) {
        return bodyTemplate.replace(AMOUNT, Long.toString(amount));
    }

    /** {@code scheme://host:port}: where the probe looks for {@code /ledger} and {@code /faults}. */
    URI origin() {
        return URI.create(url.getScheme() + "://" + url.getRawAuthority());
    }
}
