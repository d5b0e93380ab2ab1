package dev.idemlab.lab.nemesis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderException;
import dev.idemlab.provider.ProviderTimeoutException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the WebFlux filter's servers put around the filter: the demo's charge route as a WebFlux handler,
 * a bearer-token principal in front, and the hooks that tell the history what happened inside, the
 * WebFlux equivalents of {@link HttpServerSide}'s servlet hooks over the same calls and action.
 *
 * <p>The servlet side learns a request's call on the request's thread, which runs the whole filter. A
 * WebFlux exchange has no such thread, but the filter runs its coordinator's action on one of its
 * executor's threads and runs the rest of the chain there, synchronously, until the handler's response:
 * so {@link #observe} puts a slot on that thread around the action, and {@link #attribute}, a filter
 * after the idempotency filter, fills it with the call the request names and records the action's start
 * and fence (from the filter's {@link IdempotencyWebFilter#CONTEXT_ATTRIBUTE}). Once the coordinator's
 * stage completes, the slot says whose outcome and attempt end it was. A call whose action never ran
 * (a replay, a refusal) is told apart by what the client got, as any client tells it: the replay header.
 *
 * <p>Thread-safe.
 */
final class WebFluxCharges {

    /** The exchange attribute holding the call of the history the exchange's action runs for. */
    private static final String SERVED = WebFluxCharges.class.getName() + ".served";
    private static final Pattern CHARGE = Pattern.compile("/orders/([A-Za-z0-9._~-]{1,100})/charge");
    private static final String BEARER = "Bearer ";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServerSide side;
    private final FakePaymentProvider provider;
    private final Callers callers;
    /** The slot of the action running on this thread: set by the observer, filled by {@link #attribute}. */
    private final ThreadLocal<AtomicReference<HttpServerSide.Served>> acting = new ThreadLocal<>();

    WebFluxCharges(HttpServerSide side, FakePaymentProvider provider, Callers callers) {
        this.side = side;
        this.provider = provider;
        this.callers = callers;
    }

    /**
     * The servlet side's client authentication for WebFlux: {@code Authorization: Bearer client-a} makes
     * {@code client-a} the exchange's principal; a request without a bearer token has none.
     */
    static Mono<Void> bearerPrincipal(ServerWebExchange exchange, WebFilterChain chain) {
        String authorization = exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
        String client = authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? authorization.substring(BEARER.length()).trim() : "";
        if (client.isEmpty()) {
            return chain.filter(exchange);
        }
        Principal principal = new ClientPrincipal(client);
        return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    }

    private record ClientPrincipal(String getName) implements Principal { }

    /**
     * After the idempotency filter, so inside its coordinator's action, on the action's thread: tells the
     * action's slot which call the request is, records the action's start and fence, and the account the
     * server authenticated it as. A request outside any action, or naming no call of the run, passes
     * untouched (and its handler refuses to charge).
     */
    Mono<Void> attribute(ServerWebExchange exchange, WebFilterChain chain) {
        HttpServerSide.Served served = side.served(exchange.getRequest().getHeaders().getFirst(HttpServerSide.CALL_HEADER));
        AtomicReference<HttpServerSide.Served> action = acting.get();
        if (served == null || action == null) {
            return chain.filter(exchange);
        }
        action.set(served);
        exchange.getAttributes().put(SERVED, served);
        IdempotencyContext context = exchange.getAttribute(IdempotencyWebFilter.CONTEXT_ATTRIBUTE);
        CoordinatorPath.started(callers, served.record, context);
        return exchange.getPrincipal().map(Principal::getName).map(Optional::of).defaultIfEmpty(Optional.empty())
                .doOnNext(principal -> side.authenticated(served, principal.orElse(null)))
                .then(chain.filter(exchange));
    }

    /**
     * {@code POST /orders/{id}/charge} with {@code {"amount": N}}, as the servlet side's demo answers it:
     * the call's action charges the provider with the request's downstream key; 201 with the charge and a
     * Location, 504 when the provider timed out (not stored, so a retry charges again), 502 when it
     * refused. It blocks for the action's time on the filter's executor thread, where the filter runs it.
     */
    Mono<Void> handle(ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().value();
        Matcher charge = CHARGE.matcher(path);
        if (exchange.getRequest().getMethod() != HttpMethod.POST || !charge.matches()) {
            return problem(exchange.getResponse(), 404, "no such route: " + exchange.getRequest().getMethod() + " "
                    + path);
        }
        HttpServerSide.Served served = exchange.getAttribute(SERVED);
        String key = downstreamKey(exchange);
        return DataBufferUtils.join(exchange.getRequest().getBody())
                .map(buffer -> {
                    try {
                        byte[] bytes = new byte[buffer.readableByteCount()];
                        buffer.read(bytes);
                        return bytes;
                    } finally {
                        DataBufferUtils.release(buffer);
                    }
                })
                .defaultIfEmpty(new byte[0])
                .flatMap(body -> charge(exchange.getResponse(), served, charge.group(1), body, key));
    }

    /** The key the demo charges with: the filter's downstream key, scoped per client and key prefix. */
    private static String downstreamKey(ServerWebExchange exchange) {
        String derived = exchange.getAttribute(IdempotencyWebFilter.DOWNSTREAM_KEY_ATTRIBUTE);
        return derived != null ? derived : exchange.getAttribute(IdempotencyWebFilter.KEY_ATTRIBUTE);
    }

    private Mono<Void> charge(ServerHttpResponse response, HttpServerSide.Served served, String orderId, byte[] body,
                              String key) {
        JsonNode amount;
        try {
            amount = JSON.readTree(body).path("amount");
        } catch (IOException e) {
            return problem(response, 400, "the body must be a JSON object {\"amount\": N}");
        }
        if (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.asLong() <= 0) {
            return problem(response, 400, "amount must be a positive integer in minor units");
        }
        Charge made;
        try {
            made = side.charge(provider, served, new ChargeRequest(orderId, amount.asLong(), key, null));
        } catch (ProviderTimeoutException e) {
            return problem(response, 504, "the payment provider timed out: " + e.getMessage());
        } catch (ProviderException | IllegalArgumentException e) {
            return problem(response, 502, "the payment provider refused: " + e.getMessage());
        }
        ObjectNode json = JSON.createObjectNode().put("id", made.id()).put("order_id", made.orderId())
                .put("amount", made.amount());
        response.setStatusCode(HttpStatusCode.valueOf(201));
        response.getHeaders().set(HttpHeaders.LOCATION, "/charges/" + made.id());
        return write(response, MediaType.APPLICATION_JSON, json.toString());
    }

    private static Mono<Void> problem(ServerHttpResponse response, int status, String detail) {
        ObjectNode json = JSON.createObjectNode().put("title", "Payment API error").put("status", status)
                .put("detail", detail);
        response.setStatusCode(HttpStatusCode.valueOf(status));
        return write(response, MediaType.APPLICATION_PROBLEM_JSON, json.toString());
    }

    private static Mono<Void> write(ServerHttpResponse response, MediaType type, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.getHeaders().setContentType(type);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
    }

    /** What the route's filter calls: {@code coordinator}, watched. */
    IdempotencyCoordinator observe(IdempotencyCoordinator coordinator) {
        return new Observed(coordinator);
    }

    /**
     * Passes every call on; around each action, the slot {@link #attribute} fills; once the call's stage
     * completes, the call's outcome and the end of its attempt on the server (a client that gave up does
     * not end it). The stage it returns completes after those are recorded, so the client never reads
     * an answer before them, and cancelling it cancels the call's own stage, as the filter's cancel would
     * without the observer.
     */
    private final class Observed implements IdempotencyCoordinator {

        private final IdempotencyCoordinator coordinator;

        Observed(IdempotencyCoordinator coordinator) {
            this.coordinator = coordinator;
        }

        @Override
        public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                                 ContextualAction<T, E> action) throws E {
            return coordinator.call(call, codec, action);
        }

        @Override
        public <T, E extends Exception> CompletionStage<IdempotentResult<T>> callAsync(
                IdempotentCall call, ResultCodec<T> codec, ContextualAction<T, E> action, Executor executor) {
            AtomicReference<HttpServerSide.Served> served = new AtomicReference<>();
            CompletableFuture<IdempotentResult<T>> own = coordinator.callAsync(call, codec, context -> {
                acting.set(served);
                try {
                    return action.run(context);
                } finally {
                    acting.remove();
                }
            }, executor).toCompletableFuture();
            CompletableFuture<IdempotentResult<T>> observed = new CompletableFuture<>() {
                @Override
                public boolean cancel(boolean mayInterruptIfRunning) {
                    return own.cancel(mayInterruptIfRunning);
                }
            };
            own.whenComplete((result, failure) -> {
                try {
                    HttpServerSide.Served owner = served.get();
                    if (owner != null) {
                        if (result != null) {
                            owner.outcome = result.outcome();
                        }
                        owner.record.attemptEnded(callers.now());
                    }
                } finally {
                    // Whatever the recording did, the filter's stage completes: the exchange never hangs on it.
                    if (failure != null) {
                        observed.completeExceptionally(failure);
                    } else {
                        observed.complete(result);
                    }
                }
            });
            return observed;
        }

        @Override
        public IdempotencyConfig config() {
            return coordinator.config();
        }

        @Override
        public StoreDescription store() {
            return coordinator.store();
        }

        @Override
        public IdempotencyStats stats() {
            return coordinator.stats();
        }
    }
}
