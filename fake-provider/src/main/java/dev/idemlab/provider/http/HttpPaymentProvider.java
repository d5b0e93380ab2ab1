package dev.idemlab.provider.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.ProviderKeyReuseException;
import dev.idemlab.provider.ProviderTimeoutException;
import dev.idemlab.provider.StaleFenceException;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link PaymentProvider} over HTTP: the client of {@link ProviderService}. A refused key reuse
 * or a stale fence surfaces as the same exception as in process; a request that is not answered
 * within the request timeout, or answered 504, surfaces as {@link ProviderTimeoutException};
 * anything else that goes wrong as {@link ProviderHttpException}.
 *
 * <p>This class is thread-safe.
 */
public final class HttpPaymentProvider implements PaymentProvider {

    /** How long a request waits for its answer unless told otherwise. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final String base;
    private final Duration requestTimeout;
    private final HttpClient http;

    private HttpPaymentProvider(Builder builder) {
        String uri = builder.uri.toString();
        this.base = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
        this.requestTimeout = builder.requestTimeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(builder.requestTimeout)
                .build();
    }

    /** A client of the service at {@code uri} with the default request timeout. */
    public static HttpPaymentProvider connect(URI uri) {
        return builder(uri).build();
    }

    /**
     * A builder for a client of the service at {@code uri}; not thread-safe.
     *
     * @throws IllegalArgumentException when the address is not an absolute http address
     */
    public static Builder builder(URI uri) {
        return new Builder(uri);
    }

    /** The service's base address. */
    public URI uri() {
        return URI.create(base);
    }

    @Override
    public Charge charge(ChargeRequest request) {
        Objects.requireNonNull(request, "request");
        HttpRequest post = request("/charges")
                .header("Content-Type", WireFormat.JSON)
                .POST(HttpRequest.BodyPublishers.ofString(WireFormat.chargeRequest(request)))
                .build();
        HttpResponse<String> answer = exchange(post, request.orderId());
        switch (answer.statusCode()) {
            case 200:
            case 201:
                return read(answer, WireFormat::readCharge);
            case 400:
                String rule = read(answer, body -> body.path("detail").asText());
                throw new IllegalArgumentException(rule);
            case 409:
                throw read(answer, body -> new StaleFenceException(body.path("fence_key").asText(),
                        body.path(WireFormat.FENCE).asLong(), body.path("highest_fence").asLong()));
            case 422:
                throw read(answer, body -> new ProviderKeyReuseException(body.path(WireFormat.IDEMPOTENCY_KEY).asText(),
                        WireFormat.readCharge(body.get("charge")), body.path("requested_order_id").asText(),
                        body.path("requested_amount").asLong()));
            case 504:
                throw ProviderTimeoutException.unanswered(request.orderId(), "the provider answered 504");
            default:
                throw unexpected(answer);
        }
    }

    @Override
    public List<Charge> ledger() {
        HttpResponse<String> answer = exchange(request("/ledger").GET().build(), null);
        if (answer.statusCode() != 200) {
            throw unexpected(answer);
        }
        return read(answer, WireFormat::readLedger);
    }

    @Override
    public Optional<Charge> findCharge(String id) {
        Objects.requireNonNull(id, "id");
        String path = "/charges/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
        HttpResponse<String> answer = exchange(request(path).GET().build(), null);
        if (answer.statusCode() == 404) {
            return Optional.empty();
        }
        if (answer.statusCode() != 200) {
            throw unexpected(answer);
        }
        return Optional.of(read(answer, WireFormat::readCharge));
    }

    /** {@code GET /charges?idempotency_key=K}: the service's own lookup, not a read of the whole ledger. */
    @Override
    public List<Charge> chargesWithKey(String idempotencyKey) {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        String path = "/charges?" + WireFormat.IDEMPOTENCY_KEY + "="
                + URLEncoder.encode(idempotencyKey, StandardCharsets.UTF_8);
        HttpResponse<String> answer = exchange(request(path).GET().build(), null);
        if (answer.statusCode() != 200) {
            throw unexpected(answer);
        }
        return read(answer, WireFormat::readLedger);
    }

    /**
     * Plans the next {@code count} calls to time out before charging, over the wire.
     *
     * @throws IllegalArgumentException when the count is negative
     */
    public void failNextCalls(int count) {
        planFaults(WireFormat.FAIL_NEXT, count);
    }

    /**
     * Plans the next {@code count} calls to charge and then time out, over the wire.
     *
     * @throws IllegalArgumentException when the count is negative
     */
    public void chargeThenTimeOutNextCalls(int count) {
        planFaults(WireFormat.CHARGE_THEN_TIME_OUT_NEXT, count);
    }

    private void planFaults(String field, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        HttpRequest post = request("/faults")
                .header("Content-Type", WireFormat.JSON)
                .POST(HttpRequest.BodyPublishers.ofString(WireFormat.faultOrder(field, count)))
                .build();
        HttpResponse<String> answer = exchange(post, null);
        if (answer.statusCode() != 204) {
            throw unexpected(answer);
        }
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(requestTimeout);
    }

    /** Sends; a charge's ({@code orderId} not null) timeout or interruption is a provider timeout. */
    private HttpResponse<String> exchange(HttpRequest request, String orderId) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            if (orderId != null) {
                throw ProviderTimeoutException.unanswered(orderId, "no answer within " + requestTimeout);
            }
            throw failed(request, "no answer within " + requestTimeout, e);
        } catch (IOException e) {
            throw failed(request, "the exchange failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (orderId != null) {
                throw ProviderTimeoutException.unanswered(orderId, "the caller was interrupted");
            }
            throw failed(request, "the caller was interrupted", e);
        }
    }

    private interface BodyReader<T> {
        T read(JsonNode body);
    }

    private static <T> T read(HttpResponse<String> answer, BodyReader<T> reader) {
        try {
            return reader.read(WireFormat.parse(answer.body()));
        } catch (IOException | RuntimeException e) {
            throw new ProviderHttpException(answer.request().method(), answer.uri(), answer.statusCode(),
                    "unreadable answer: " + abbreviate(answer.body()), e);
        }
    }

    private static ProviderHttpException failed(HttpRequest request, String detail, Exception cause) {
        return new ProviderHttpException(request.method(), request.uri(), ProviderHttpException.NO_STATUS, detail, cause);
    }

    private static ProviderHttpException unexpected(HttpResponse<String> answer) {
        return new ProviderHttpException(answer.request().method(), answer.uri(), answer.statusCode(),
                "unexpected answer: " + abbreviate(answer.body()), null);
    }

    private static String abbreviate(String body) {
        return body.length() <= 200 ? body : body.substring(0, 200) + "...";
    }

    /** Builds an {@link HttpPaymentProvider}. Not thread-safe. */
    public static final class Builder {

        private final URI uri;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;

        private Builder(URI uri) {
            Objects.requireNonNull(uri, "uri");
            if (!uri.isAbsolute() || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    || uri.getHost() == null) {
                throw new IllegalArgumentException("uri must be an absolute http or https address: " + uri);
            }
            this.uri = uri;
        }

        /**
         * How long a request waits for its answer (and a connection); must be positive. A charge
         * not answered in time surfaces as {@link ProviderTimeoutException}.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive: " + requestTimeout);
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        public HttpPaymentProvider build() {
            return new HttpPaymentProvider(this);
        }
    }
}
