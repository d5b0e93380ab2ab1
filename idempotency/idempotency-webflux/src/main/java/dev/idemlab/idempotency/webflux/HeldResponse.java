package dev.idemlab.idempotency.webflux;

import dev.idemlab.idempotency.servlet.internal.StoredResponse;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The handler's response, held back until the filter has decided what to store, as the servlet
 * filter's {@code ResponseCapture} holds a servlet response: status and headers go to the real response
 * as they are set, the body is kept here, and nothing is committed ({@link #setComplete()} commits
 * nothing) until {@link #release()} sends the body. So a 5xx can be answered without being stored,
 * and a response that lost to another request's stored one can be replaced by it.
 *
 * <p>Thread-safe for one exchange: the body's buffers may arrive on any thread, one at a time.
 */
final class HeldResponse extends ServerHttpResponseDecorator {

    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    HeldResponse(ServerHttpResponse delegate) {
        super(delegate);
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> buffers) {
        return Flux.from(buffers).doOnNext(this::hold).then();
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> buffers) {
        return Flux.from(buffers).concatMap(Flux::from).doOnNext(this::hold).then();
    }

    /** Commits nothing: the filter sends the held body (or a replay) when it has decided. */
    @Override
    public Mono<Void> setComplete() {
        return Mono.empty();
    }

    private void hold(DataBuffer buffer) {
        try {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            synchronized (body) {
                body.writeBytes(bytes);
            }
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    /** The response so far: its status (200 when the handler set none), the named headers and the body. */
    StoredResponse captured(List<String> headerNames) {
        HttpStatusCode status = getDelegate().getStatusCode();
        HttpHeaders real = getDelegate().getHeaders();
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : headerNames) {
            List<String> values = HeaderValues.of(real, name);
            if (!values.isEmpty()) {
                headers.put(name, new ArrayList<>(values));
            }
        }
        return new StoredResponse(status == null ? 200 : status.value(), headers, bytes());
    }

    /** Sends the held body on the real response, with its length, and so completes it. */
    Mono<Void> release() {
        return send(getDelegate(), bytes());
    }

    private byte[] bytes() {
        synchronized (body) {
            return body.toByteArray();
        }
    }

    /** Writes {@code bytes} as the whole body of {@code response}, with its Content-Length. */
    static Mono<Void> send(ServerHttpResponse response, byte[] bytes) {
        response.getHeaders().setContentLength(bytes.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
    }
}
