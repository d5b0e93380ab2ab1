package dev.idemlab.lab.http;

import dev.idemlab.lab.load.raw.RawStore;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Objects;

/**
 * The floor the Idempotency-Key filter is judged against: what exactly-once over HTTP needs from the
 * store and nothing more, done by hand in the handler around the charge. A request whose key is free
 * writes a pending record ({@link RawStore#markPending}: {@code putIfAbsent}, {@code SET NX PX}, an
 * {@code INSERT}), charges, and replaces the record with its response ({@link RawStore#storeResult}:
 * {@code replace}, {@code SET XX PX}, an {@code UPDATE}); a request whose key is taken reads the record
 * once ({@link RawStore#readResult}) and replays the stored response, or answers 409 while it is still
 * pending. The record lives under the client and the key exactly as sent: no key syntax check, no
 * fingerprint, no lease renewal, no response capture, no problem details beyond the 409 the draft
 * asks for. The filter does all of those; the difference between the two is what they cost.
 *
 * <p>Thread-safe.
 */
final class RawWrites {

    /** The header that marks a replayed response, as the filter sends it. */
    static final String REPLAYED_HEADER = "Idempotent-Replayed";
    private static final byte[] IN_FLIGHT = ("{\"title\":\"A request with this key is in flight\",\"status\":409}")
            .getBytes(StandardCharsets.UTF_8);

    private final RawStore store;

    RawWrites(RawStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * The record's key: the client's name and the Idempotency-Key as sent; {@code null} when the request
     * names no client or carries no key, which the caller answers 400.
     */
    static String recordKey(HttpServletRequest request) {
        String key = request.getHeader("Idempotency-Key");
        Principal client = request.getUserPrincipal();
        return key == null || client == null ? null : client.getName() + ':' + key;
    }

    /** Writes the pending record if the key is free: whether this request took it and must run. */
    boolean reserve(String recordKey) {
        return store.markPending(recordKey);
    }

    /** Replaces the pending record with the response the handler is about to send. */
    void complete(String recordKey, int status, String location, String body) {
        store.storeResult(recordKey, status + "\n" + location + "\n" + body);
    }

    /** Answers a request whose key another one took: its stored response replayed, or 409 while pending. */
    void answerTaken(String recordKey, HttpServletResponse response) throws IOException {
        String stored = store.readResult(recordKey);
        if (stored == null) {
            response.setStatus(409);
            response.setContentType("application/problem+json");
            response.setContentLength(IN_FLIGHT.length);
            response.getOutputStream().write(IN_FLIGHT);
            return;
        }
        int first = stored.indexOf('\n');
        int second = stored.indexOf('\n', first + 1);
        byte[] body = stored.substring(second + 1).getBytes(StandardCharsets.UTF_8);
        response.setStatus(Integer.parseInt(stored, 0, first, 10));
        response.setHeader("Location", stored.substring(first + 1, second));
        response.setHeader(REPLAYED_HEADER, "true");
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
