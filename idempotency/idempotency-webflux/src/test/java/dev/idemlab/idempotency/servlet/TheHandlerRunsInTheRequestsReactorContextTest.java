package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.util.context.Context;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handler behind the WebFlux filter runs in the request's Reactor Context, as it would without the
 * filter: Spring Security keeps the authenticated principal there (ReactiveSecurityContextHolder,
 * {@code @AuthenticationPrincipal}, reactive method security), so a handler started on the filter's own
 * thread with an empty Context would see no user. An upstream filter here writes {@code user=alice} into
 * the Context and the handler answers what it reads.
 */
class TheHandlerRunsInTheRequestsReactorContextTest {

    private DisposableServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.disposeNow();
        }
    }

    @Test
    void whatAnUpstreamFilterPutInTheContextReachesTheHandler() throws Exception {
        WebFilter upstream = (exchange, chain) -> chain.filter(exchange).contextWrite(Context.of("user", "alice"));
        WebFilter idempotency = IdempotencyWebFilter.custom(Routes.charge().allowAnonymousClients(true).build())
                .paths("/orders/**").build();
        WebHandler handler = exchange -> Mono.deferContextual(context -> {
            byte[] user = context.getOrDefault("user", "NONE").getBytes(StandardCharsets.UTF_8);
            exchange.getResponse().setStatusCode(HttpStatus.CREATED);
            return exchange.getResponse().writeWith(Mono.just(exchange.getResponse().bufferFactory().wrap(user)));
        });
        server = HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(
                WebHttpHandlerBuilder.webHandler(handler).filter(upstream, idempotency).build())).bindNow();

        HttpResponse<String> first = post("k1");
        HttpResponse<String> replay = post("k1");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("alice");
        assertThat(replay.body()).isEqualTo("alice");
        assertThat(replay.headers().firstValue(IdempotencyWebFilter.REPLAYED_HEADER)).hasValue("true");
    }

    private HttpResponse<String> post(String key) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/orders/o-1/charge"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "\"" + key + "\"")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}")).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
