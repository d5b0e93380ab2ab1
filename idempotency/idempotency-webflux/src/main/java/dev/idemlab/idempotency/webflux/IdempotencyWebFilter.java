package dev.idemlab.idempotency.webflux;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.servlet.ClientResolver;
import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import dev.idemlab.idempotency.servlet.IdempotentRoute;
import dev.idemlab.idempotency.servlet.Refusal;
import dev.idemlab.idempotency.servlet.RefusalWriter;
import dev.idemlab.idempotency.servlet.headers.ExpiryPolicyHeader;
import dev.idemlab.idempotency.servlet.internal.ClientScope;
import dev.idemlab.idempotency.servlet.internal.KeyHeader;
import dev.idemlab.idempotency.servlet.internal.MalformedKeyException;
import dev.idemlab.idempotency.servlet.internal.Problem;
import dev.idemlab.idempotency.servlet.internal.Refusals;
import dev.idemlab.idempotency.servlet.internal.RequestFingerprint;
import dev.idemlab.idempotency.servlet.internal.StoredResponse;
import dev.idemlab.idempotency.servlet.internal.StoredResponseCodec;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Puts one route of a Spring WebFlux application behind the idempotency coordinator, under the rules
 * {@link IdempotencyFilter} follows for a servlet container (its javadoc states them, section by section
 * of draft-ietf-httpapi-idempotency-key-header-07), and with the same code for each: the key's syntax,
 * the fingerprint, the refusals and their problem details, the stored response and its replay, and
 * the client's scope come from the servlet module, so a key's record reads the same whichever filter
 * wrote it. The exchange's attributes carry what the servlet filter's request attributes carry, under
 * the same names: {@link #KEY_ATTRIBUTE}, {@link #DOWNSTREAM_KEY_ATTRIBUTE} (the key to pass to a
 * provider) and {@link #CONTEXT_ATTRIBUTE}.
 *
 * <p><b>No store call on an event loop.</b> The store's interface is blocking (JDBC, a synchronous
 * Redis client), and the coordinator's action is synchronous: it returns the response to store, so
 * it waits for the handler's response. The filter therefore runs the call through the coordinator's
 * {@code callAsync} on its own executor, a bounded elastic scheduler by default
 * ({@link Builder#executor}): reserve, the wait for the handler, complete and release hold one of its
 * threads, never a Netty event loop; a request that finds its key in flight under {@code WAIT} holds no
 * thread at all while it waits. The scheduler is the filter's own, not Reactor's shared one, so a
 * handler that moves its own blocking work onto {@code Schedulers.boundedElastic()} never waits behind
 * the very calls that wait for it; its cap (ten threads per core) and its queue bound the threads a
 * burst can start, and a request the full queue rejects is answered 503.
 *
 * <p>Differences from the servlet filter: the client comes from a {@link ReactiveClientResolver}
 * (default: the exchange's principal), not the route's servlet {@code ClientResolver}, and refusals are
 * always problem details (a route's {@code RefusalWriter} writes servlet responses); {@link Builder#build}
 * refuses a route that sets either. Paths are Spring {@link PathPattern}s.
 *
 * <p>Thread-safe: one instance serves every request of its route.
 */
public final class IdempotencyWebFilter implements WebFilter {

    /** The header that marks a replayed response: the servlet filter's. */
    public static final String REPLAYED_HEADER = IdempotencyFilter.REPLAYED_HEADER;
    /** The exchange attribute holding the client's key as sent (for a log line): the servlet filter's name. */
    public static final String KEY_ATTRIBUTE = IdempotencyFilter.KEY_ATTRIBUTE;
    /** The exchange attribute holding the key to pass to a provider, scoped per client: the servlet filter's name. */
    public static final String DOWNSTREAM_KEY_ATTRIBUTE = IdempotencyFilter.DOWNSTREAM_KEY_ATTRIBUTE;
    /** The exchange attribute holding the whole {@link IdempotencyContext}: the servlet filter's name. */
    public static final String CONTEXT_ATTRIBUTE = IdempotencyFilter.CONTEXT_ATTRIBUTE;

    private static final StoredResponseCodec CODEC = new StoredResponseCodec();

    private final IdempotentRoute route;
    private final List<PathPattern> paths;
    private final ReactiveClientResolver clients;
    private final Executor executor;
    /** The {@link ExpiryPolicyHeader} value, sent on the application's answers and on replays, as the servlet filter does. */
    private final String expiryPolicy;

    IdempotencyWebFilter(IdempotentRoute route, List<PathPattern> paths, ReactiveClientResolver clients,
                         Executor executor) {
        this.route = route;
        this.expiryPolicy = ExpiryPolicyHeader.valueOf(route.coordinator().config());
        this.paths = List.copyOf(paths);
        this.clients = clients;
        this.executor = executor;
    }

    /** A builder of a filter for {@code route}. Not thread-safe. */
    public static Builder custom(IdempotentRoute route) {
        return new Builder(route);
    }

    /** The route this filter guards. */
    public IdempotentRoute route() {
        return route;
    }

    /** The path patterns it guards, as parsed. */
    public List<PathPattern> paths() {
        return paths;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (!guards(request)) {
            return chain.filter(exchange);
        }
        String key;
        try {
            key = KeyHeader.parse(HeaderValues.of(request.getHeaders(), KeyHeader.NAME), route.bareKeysAccepted());
        } catch (MalformedKeyException e) {
            return refuse(exchange.getResponse(), Refusals.malformed(route, e));
        }
        if (key == null) {
            return route.keyRequired()
                    ? refuse(exchange.getResponse(), Refusals.missing(route, request.getMethod().name(),
                            request.getPath().value()))
                    : chain.filter(exchange);
        }
        String brokenRule = IdempotentCall.brokenKeyRule(key);
        if (brokenRule != null) {
            return refuse(exchange.getResponse(), Refusals.invalid(route, brokenRule));
        }
        return scopedOperation(exchange).flatMap(operation -> operation.isEmpty()
                ? refuse(exchange.getResponse(), Refusals.clientUnknown(route))
                : readBody(exchange, body -> run(exchange, chain, IdempotentCall.of(operation.get(), key,
                        fingerprint(request, body)), body)));
    }

    private boolean guards(ServerHttpRequest request) {
        if (!route.methods().contains(request.getMethod().name().toUpperCase(Locale.ROOT))) {
            return false;
        }
        for (PathPattern path : paths) {
            if (path.matches(request.getPath().pathWithinApplication())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The operation the exchange's records live under: the route's, scoped to the client, or to the
     * anonymous scope no named client can share; empty when the exchange names no client and the route
     * allows no anonymous ones.
     */
    private Mono<Optional<String>> scopedOperation(ServerWebExchange exchange) {
        return clients.clientOf(exchange)
                .filter(client -> !client.isEmpty())
                .map(client -> Optional.of(ClientScope.operation(route.operation(), client)))
                .defaultIfEmpty(route.anonymousAllowed()
                        ? Optional.of(ClientScope.anonymousOperation(route.operation())) : Optional.empty());
    }

    /** Reads the whole body, up to the route's limit (else 413), and hands it on. */
    private Mono<Void> readBody(ServerWebExchange exchange, Function<byte[], Mono<Void>> next) {
        return DataBufferUtils.join(exchange.getRequest().getBody(), route.maxBodyBytes())
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
                .map(Optional::of)
                // Only the body's own read: a limit the handler's codecs hit later is the handler's error, not a 413.
                .onErrorResume(DataBufferLimitException.class, tooLarge -> Mono.just(Optional.empty()))
                .flatMap(read -> read.isPresent() ? next.apply(read.get())
                        : refuse(exchange.getResponse(), Refusals.tooLarge(route)));
    }

    private Fingerprint fingerprint(ServerHttpRequest request, byte[] body) {
        HttpHeaders headers = request.getHeaders();
        return RequestFingerprint.of(request.getMethod().name(), request.getPath().value(),
                request.getURI().getRawQuery(), headers.getFirst(HttpHeaders.CONTENT_TYPE),
                name -> HeaderValues.of(headers, name), route.fingerprintedHeaders(), body);
    }

    private Mono<Void> run(ServerWebExchange exchange, WebFilterChain chain, IdempotentCall call, byte[] body) {
        exchange.getAttributes().put(KEY_ATTRIBUTE, call.key());
        HeldResponse held = new HeldResponse(exchange.getResponse());
        ServerWebExchange guarded = exchange.mutate()
                .request(new CachedBodyRequest(exchange.getRequest(), body, exchange.getResponse().bufferFactory()))
                .response(held)
                .build();
        AtomicReference<StoredResponse> own = new AtomicReference<>();
        // The subscriber's Context (Spring Security's context among what upstream filters put there) goes
        // with the handler onto the executor's thread: block() would start the chain with an empty one.
        return Mono.deferContextual(subscriber -> Mono.fromCompletionStage(() -> route.coordinator().callAsync(call,
                        CODEC, context -> {
                            StoredResponse captured = handle(guarded, chain, held, context, subscriber);
                            own.set(captured);
                            return captured;
                        }, executor)))
                .flatMap(result -> answer(exchange.getResponse(), held, result, own.get()))
                .onErrorResume(failure -> failed(exchange.getResponse(), held, failure));
    }

    /**
     * The action: runs the rest of the chain, in the subscriber's Context, and waits for its response on
     * this thread, one of the executor's, never an event loop's. A 5xx is not stored: the coordinator
     * releases the key. Neither is an exception the handler raises (Spring's exception handlers answer
     * it outside this filter, where it cannot be captured): the key is released and a retry runs the
     * handler again, where the servlet filter stores an error status the handler sent. Only a stored
     * answer carries the expiry policy.
     */
    private StoredResponse handle(ServerWebExchange guarded, WebFilterChain chain, HeldResponse held,
                                  IdempotencyContext context, ContextView subscriber) throws Exception {
        Map<String, Object> attributes = guarded.getAttributes();
        attributes.put(CONTEXT_ATTRIBUTE, context);
        // The exchange's attributes hold no null (a concurrent map): a context without a downstream key
        // leaves the attribute absent, which is what the servlet filter's setAttribute(name, null) does.
        if (context.downstreamKey() != null) {
            attributes.put(DOWNSTREAM_KEY_ATTRIBUTE, context.downstreamKey());
        } else {
            attributes.remove(DOWNSTREAM_KEY_ATTRIBUTE);
        }
        try {
            chain.filter(guarded).contextWrite(subscriber).block();
        } catch (RuntimeException e) {
            Throwable cause = Exceptions.unwrap(e);
            throw cause instanceof Exception checked ? checked : e;
        }
        StoredResponse captured = held.captured(route.replayedHeaders());
        if (captured.status() >= 500) {
            throw new NotStored(captured.status());
        }
        held.getHeaders().set(ExpiryPolicyHeader.NAME, expiryPolicy);
        return captured;
    }

    private Mono<Void> answer(ServerHttpResponse response, HeldResponse held,
                                     IdempotentResult<StoredResponse> result, StoredResponse own) {
        if (result.value() == own) {
            return held.release();
        }
        // Another request's response: a replay, or, under a result cache, the first writer's answer to a
        // request that ran too, which is no replay and is not marked as one.
        return replay(response, result.value(), own == null);
    }

    private Mono<Void> failed(ServerHttpResponse response, HeldResponse held, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof NotStored) {
            return held.release();
        }
        if (cause instanceof IdempotencyException e) {
            return refuse(response, Refusals.of(route, e));
        }
        if (cause instanceof RejectedExecutionException) {
            return refuse(response, new Refusal(503, "idempotency-busy", "Too many idempotent requests at once",
                    "the filter's executor is full; retry later", null, route.documentation()));
        }
        return Mono.error(cause);
    }

    private Mono<Void> replay(ServerHttpResponse response, StoredResponse stored, boolean marked) {
        HttpHeaders headers = response.getHeaders();
        headers.clear();
        response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
        stored.headers().forEach((name, values) -> values.forEach(value -> headers.add(name, value)));
        if (marked) {
            headers.set(REPLAYED_HEADER, "true");
        }
        headers.set(ExpiryPolicyHeader.NAME, expiryPolicy);
        return HeldResponse.send(response, stored.body());
    }

    /** Answers {@code refusal} as RFC 9457 problem details, the same bytes the servlet filter writes. */
    private static Mono<Void> refuse(ServerHttpResponse response, Refusal refusal) {
        byte[] body = new Problem(refusal.status(), refusal.code(), refusal.title(), refusal.detail())
                .json(refusal.documentation());
        HttpHeaders headers = response.getHeaders();
        headers.clear();
        response.setStatusCode(HttpStatusCode.valueOf(refusal.status()));
        headers.set(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
        if (refusal.documentation() != null) {
            headers.set(HttpHeaders.LINK, Problem.link(refusal.documentation()));
        }
        if (refusal.retryAfter() != null) {
            headers.set(HttpHeaders.RETRY_AFTER, Problem.retryAfterSeconds(refusal.retryAfter()));
        }
        return HeldResponse.send(response, body);
    }

    /** Builds an {@link IdempotencyWebFilter}. Not thread-safe. */
    public static final class Builder {

        /** Reactor's default cap on a bounded elastic scheduler's threads, per core. */
        private static final int THREADS_PER_CORE = 10;
        /** The queue behind the cap: a burst waits there; a request that finds it full is answered 503. */
        private static final int QUEUED_TASKS = 100_000;

        private final IdempotentRoute route;
        private List<String> paths = List.of();
        private ReactiveClientResolver clients = ReactiveClientResolver.PRINCIPAL;
        private Executor executor;

        private Builder(IdempotentRoute route) {
            this.route = Objects.requireNonNull(route, "route");
        }

        /** The paths to guard, as Spring {@link PathPattern}s (say {@code /orders/**}); at least one. */
        public Builder paths(String... patterns) {
            this.paths = List.of(patterns);
            return this;
        }

        /** Who the client is; default the exchange's principal. */
        public Builder clients(ReactiveClientResolver clients) {
            this.clients = Objects.requireNonNull(clients, "clients");
            return this;
        }

        /**
         * Where the coordinator's blocking store calls, and the wait for the handler's response, run;
         * its threads must allow blocking (a Reactor bounded elastic scheduler's do, a parallel one's do
         * not). Default: a bounded elastic scheduler of the filter's own, ten daemon threads per core.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * @throws InvalidIdempotencyConfigException naming the rule a value breaks
         */
        public IdempotencyWebFilter build() {
            if (paths.isEmpty()) {
                throw new InvalidIdempotencyConfigException("paths", paths, "name at least one path pattern to guard");
            }
            if (route.clients() != ClientResolver.PRINCIPAL) {
                throw new InvalidIdempotencyConfigException("clients", route.clients(), "the route names a servlet "
                        + "ClientResolver, which a WebFlux exchange cannot answer: name a ReactiveClientResolver "
                        + "on the filter's builder instead");
            }
            if (route.refusals() != RefusalWriter.PROBLEM_DETAILS) {
                throw new InvalidIdempotencyConfigException("refusals", route.refusals(), "the route names a servlet "
                        + "RefusalWriter; the WebFlux filter answers refusals as problem details only");
            }
            List<PathPattern> parsed = new ArrayList<>();
            for (String path : paths) {
                try {
                    parsed.add(PathPatternParser.defaultInstance.parse(path));
                } catch (PatternParseException e) {
                    throw new InvalidIdempotencyConfigException("paths", path, "paths must be Spring path patterns: "
                            + e.getMessage());
                }
            }
            return new IdempotencyWebFilter(route, parsed, clients, executor == null ? sharedExecutor() : executor);
        }

        private static Executor sharedExecutor() {
            Scheduler scheduler = SharedExecutor.SCHEDULER;
            return task -> scheduler.schedule(task);
        }

        /** One bounded elastic scheduler for every filter that names no executor, started when first needed. */
        private static final class SharedExecutor {

            static final Scheduler SCHEDULER = Schedulers.newBoundedElastic(
                    THREADS_PER_CORE * Runtime.getRuntime().availableProcessors(), QUEUED_TASKS, "idempotency-webflux",
                    60, true);
        }
    }

    /** The handler answered 5xx: not stored, so the coordinator releases the key. */
    private static final class NotStored extends RuntimeException {

        private static final long serialVersionUID = 1L;

        NotStored(int status) {
            super("answered " + status + ": not stored", null, false, false);
        }
    }
}
