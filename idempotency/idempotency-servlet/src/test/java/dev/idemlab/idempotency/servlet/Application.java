package dev.idemlab.idempotency.servlet;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The application behind the filter, told apart from any server: the shared rule suite runs it behind
 * the servlet filter (in Jetty, through {@link ApplicationServlet}) and behind the WebFlux filter (in
 * idempotency-webflux's tests), so both filters face one application. Implementations are thread-safe.
 */
interface Application {

    /**
     * The answer to a POST to {@code path}.
     *
     * @param downstreamKey the key the filter handed over for a provider; {@code null} when it handed none
     * @throws Exception a failure the server answers 500
     */
    Answer post(String path, byte[] body, String downstreamKey) throws Exception;

    /** The answer to a GET of {@code path}, which no route guards. */
    Answer get(String path);

    /**
     * One response: status, headers in order, body. Immutable.
     *
     * @param status the HTTP status
     * @param headers header name to value
     * @param body the body's bytes
     */
    record Answer(int status, Map<String, String> headers, byte[] body) {

        public Answer {
            headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        }

        static Answer text(int status, String text) {
            return new Answer(status, Map.of("Content-Type", "text/plain"), text.getBytes(StandardCharsets.UTF_8));
        }

        static Answer json(int status, Map<String, String> headers, String json) {
            Map<String, String> all = new LinkedHashMap<>();
            all.put("Content-Type", "application/json");
            all.putAll(headers);
            return new Answer(status, all, json.getBytes(StandardCharsets.UTF_8));
        }
    }
}
