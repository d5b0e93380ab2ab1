package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import java.net.URI;
import java.net.http.HttpClient;
import java.security.Principal;
import java.time.Duration;

/**
 * A real Reactor Netty server on 127.0.0.1 and an ephemeral port, with a bearer-token principal filter,
 * the WebFlux idempotency filter on {@code /orders/**} and the {@link Application} behind them as a
 * WebFlux handler; and a JDK HTTP client to talk to it: the WebFlux filter's {@link ServerUnderTest}.
 * It lives in the servlet module's test package because the shared rule suite's types are package-private
 * there. Close it to stop the server.
 */
final class WebFluxServer implements ServerUnderTest {

    /** The WebFlux filter on Reactor Netty: the servers the shared rule suite's WebFlux runs use. */
    static final Servers WEBFLUX = new Servers() {
        @Override
        public ServerUnderTest start(IdempotentRoute route, Application app) {
            return WebFluxServer.start(IdempotencyWebFilter.custom(route).paths("/orders/**").build(), app);
        }

        @Override
        public ServerUnderTest startNamingClientsBy(String header, IdempotentRoute.Builder route, Application app) {
            return WebFluxServer.start(IdempotencyWebFilter.custom(route.build()).paths("/orders/**")
                    .clients(exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(header)))
                    .build(), app);
        }
    };

    private final DisposableServer server;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private WebFluxServer(DisposableServer server) {
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + server.port());
    }

    static WebFluxServer start(WebFilter idempotency, Application app) {
        ReactorHttpHandlerAdapter adapter = new ReactorHttpHandlerAdapter(WebHttpHandlerBuilder
                .webHandler(exchange -> handle(exchange, app))
                .filter(WebFluxServer::bearerPrincipal, idempotency)
                .build());
        return new WebFluxServer(HttpServer.create().host("127.0.0.1").port(0).handle(adapter).bindNow());
    }

    /** Test authentication: {@code Authorization: Bearer NAME} makes NAME the exchange's principal. */
    private static Mono<Void> bearerPrincipal(ServerWebExchange exchange, org.springframework.web.server.WebFilterChain chain) {
        String authorization = exchange.getRequest().getHeaders().getFirst("Authorization");
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return chain.filter(exchange);
        }
        Principal principal = authorization.substring("Bearer ".length())::trim;
        return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    }

    /** The application as a handler; it may block (a held charge waits on a latch), so it runs off the event loop. */
    private static Mono<Void> handle(ServerWebExchange exchange, Application app) {
        String path = exchange.getRequest().getPath().value();
        if (exchange.getRequest().getMethod() == HttpMethod.GET) {
            return write(exchange.getResponse(), app.get(path));
        }
        String downstreamKey = exchange.getAttribute(IdempotencyWebFilter.DOWNSTREAM_KEY_ATTRIBUTE);
        return DataBufferUtils.join(exchange.getRequest().getBody())
                .map(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return bytes;
                })
                .defaultIfEmpty(new byte[0])
                .publishOn(Schedulers.boundedElastic())
                .flatMap(body -> Mono.fromCallable(() -> app.post(path, body, downstreamKey)))
                .flatMap(answer -> write(exchange.getResponse(), answer));
    }

    private static Mono<Void> write(ServerHttpResponse response, Application.Answer answer) {
        response.setStatusCode(HttpStatusCode.valueOf(answer.status()));
        answer.headers().forEach(response.getHeaders()::set);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(answer.body())));
    }

    @Override
    public URI base() {
        return base;
    }

    @Override
    public HttpClient http() {
        return http;
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
