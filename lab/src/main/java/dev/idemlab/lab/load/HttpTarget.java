package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.http.ChargeRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP load's target: each request is {@code POST /orders/order-N/charge} with {@code {"amount": A}}
 * and the key's {@code Idempotency-Key}, sent by a JDK {@code HttpClient} to the demo payment API. A
 * 2xx with a charge id is an answer (replayed when {@code Idempotent-Replayed} says so); 409, 422, 503
 * and 504 are the definite errors the filter and the API document; anything else is indeterminate.
 * Thread-safe.
 */
final class HttpTarget implements LoadTarget {

    /** Every worker is one client of the demo API: keys are scoped per client, and they must collide. */
    static final String CLIENT = "load";
    private static final Pattern CHARGE_ID = Pattern.compile("\"id\":\"([^\"]+)\"");

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** @param base the demo API, {@code http://127.0.0.1:PORT} */
    HttpTarget(URI base) {
        this.base = base;
    }

    @Override
    public void send(int key, ChargeHistory history) {
        HttpResponse<String> answer;
        try {
            answer = http.send(ChargeRequest.of(base, CLIENT, LoadKeys.orderId(key), LoadKeys.amount(key),
                    LoadKeys.key(key)), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for an answer", e);
        }
        int status = answer.statusCode();
        Matcher id = CHARGE_ID.matcher(answer.body());
        if (status / 100 == 2 && id.find()) {
            boolean replayed = answer.headers().firstValue("Idempotent-Replayed").isPresent();
            history.answered(key, id.group(1), replayed ? Outcome.REPLAYED : Outcome.EXECUTED);
            return;
        }
        ErrorKind kind = switch (status) {
            case 409 -> ErrorKind.IN_PROGRESS;
            case 422 -> ErrorKind.KEY_REUSE;
            case 503 -> ErrorKind.STORE_UNAVAILABLE;
            case 504 -> ErrorKind.PROVIDER_TIMEOUT;
            default -> null;
        };
        if (kind == null) {
            throw new UnexpectedStatusException(status);
        }
        history.failed(kind);
    }

    /** An HTTP status the load cannot call definite: the request may or may not have charged. */
    static final class UnexpectedStatusException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UnexpectedStatusException(int status) {
            super("the demo API answered HTTP " + status);
        }
    }
}
