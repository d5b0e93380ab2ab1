package dev.idemlab.idempotency.webflux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;

/**
 * The request with the body the filter already read for its fingerprint, so the handler reads the
 * same bytes again, as often as it subscribes. Immutable.
 */
final class CachedBodyRequest extends ServerHttpRequestDecorator {

    private final byte[] body;
    private final DataBufferFactory buffers;

    CachedBodyRequest(ServerHttpRequest delegate, byte[] body, DataBufferFactory buffers) {
        super(delegate);
        this.body = body;
        this.buffers = buffers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(buffers.wrap(body)));
    }
}
