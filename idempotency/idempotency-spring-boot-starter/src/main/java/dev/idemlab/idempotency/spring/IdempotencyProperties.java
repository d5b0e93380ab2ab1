package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.List;

/**
 * The starter's settings under {@code idempotency.*}. Only binding happens here: every rule (the
 * lease shorter than the ttl, the ttl's floor and ceiling, a Redis URI's form) is checked by the
 * library's own builders when the beans are made, so a bad value fails startup with the library's
 * message naming the rule.
 *
 * <p>Immutable and thread-safe.
 *
 * @param store where records are kept. {@code memory} (the default, with a WARN at startup: records
 *     are per process, lost on restart and not shared between instances), {@code redis} (needs
 *     {@code idempotency.redis.uri}, or Spring Data Redis's {@code LettuceConnectionFactory}) or
 *     {@code postgres} (the application's own {@code DataSource})
 * @param keyPrefix prefix of every record's key: the Redis key prefix, the PostgreSQL namespace
 *     prefix. Empty: the store's own default ({@code idempotency:} on Redis, none on PostgreSQL)
 * @param policy what a request does that finds an identical one in flight: {@code wait} for its
 *     outcome and replay it, or {@code raise} {@code IdempotencyInProgressException} (HTTP 409)
 * @param lease how long a reservation protects a key whose holder died; renewed while the holder runs.
 *     Must be shorter than the ttl
 * @param ttl how long a completed result is replayed; at least 60 s, at most 30 days
 * @param storeFailureMode what a call does when the store cannot be reached: {@code fail-open} runs the
 *     action anyway (availability over exactly-once, counted and logged), {@code fail-closed} refuses
 *     with {@code IdempotencyStoreUnavailableException} (HTTP 503)
 * @param storePatience how long a store call that timed out is retried before the failure mode applies
 * @param expectedDuration how long a request usually takes: a 409 (the key's first request in flight) says
 *     {@code Retry-After} this duration minus the holder's age, never more than the time left on its lease
 * @param redis the Redis store's settings
 * @param postgres the PostgreSQL store's settings
 * @param aspect the {@code @Idempotent} advice's settings
 * @param web the servlet filter's settings
 * @param kafka the settings of {@code @Idempotent} {@code @KafkaListener} methods
 */
@ConfigurationProperties("idempotency")
public record IdempotencyProperties(
        @DefaultValue("memory") StoreKind store,
        String keyPrefix,
        @DefaultValue("wait") InFlightPolicy policy,
        @DefaultValue("30s") Duration lease,
        @DefaultValue("24h") Duration ttl,
        @DefaultValue("fail-open") StoreFailureMode storeFailureMode,
        @DefaultValue("2s") Duration storePatience,
        @DefaultValue("1s") Duration expectedDuration,
        @DefaultValue Redis redis,
        @DefaultValue Postgres postgres,
        @DefaultValue Aspect aspect,
        @DefaultValue Web web,
        @DefaultValue Kafka kafka) {

    /**
     * The coordinator's configuration, through the library's builder.
     *
     * @throws dev.idemlab.idempotency.InvalidIdempotencyConfigException naming the setting and the rule
     */
    public IdempotencyConfig coordinatorConfig() {
        return IdempotencyConfig.custom()
                .policy(policy)
                .lease(lease)
                .ttl(ttl)
                .storeFailureMode(storeFailureMode)
                .storePatience(storePatience)
                .expectedDuration(expectedDuration)
                .build();
    }

    /**
     * The settings of {@code @Idempotent} {@code @KafkaListener} methods.
     *
     * @param inFlightRetry the pause before a record whose first delivery is still being handled is tried
     *     again (see {@link IdempotentListeners})
     */
    public record Kafka(@DefaultValue("100ms") Duration inFlightRetry) { }

    /**
     * The Redis store's settings.
     *
     * @param uri the server, {@code redis://host:port} (or {@code redis-cluster://host:port,...}).
     *     Required with {@code idempotency.store=redis} unless the application has Spring Data Redis's
     *     {@code LettuceConnectionFactory} on one server: the store then connects to the factory's server
     *     ({@code spring.data.redis.*}) on the factory's client. When set, the store connects here, on the
     *     application's Lettuce client if it has one (a {@code RedisClient} bean, else the factory's)
     * @param commandTimeout how long one command may take before it counts as a storage error
     */
    public record Redis(String uri, @DefaultValue("1s") Duration commandTimeout) { }

    /**
     * The PostgreSQL store's settings. The connection comes from the application's {@code DataSource}.
     *
     * @param table the table the records live in; created (with its schema version) when absent
     * @param renewalPoolSize connections of the store's own for lease renewals, a copy of the application's
     *     HikariCP pool (same server and settings), so that a busy application never makes a live holder's
     *     renewal wait for a connection past its lease; 0 renews on the application's pool
     */
    public record Postgres(@DefaultValue("idempotency_record") String table, @DefaultValue("4") int renewalPoolSize) { }

    /**
     * The {@code @Idempotent} advice's settings.
     *
     * @param enabled whether {@code @Idempotent} methods of Spring beans are advised
     * @param order the advice's order among the bean's advisors. It must be smaller (a higher precedence)
     *     than the transaction advisor's ({@code Ordered.LOWEST_PRECEDENCE} unless
     *     {@code @EnableTransactionManagement(order = ...)} says otherwise), so that the idempotency
     *     advice runs outside the transaction: a result is stored only after the business transaction
     *     committed, and a rollback's exception releases the reservation
     */
    public record Aspect(@DefaultValue("true") boolean enabled,
                         @DefaultValue("" + IdempotencyAdvisor.DEFAULT_ORDER) int order) { }

    /**
     * The web filters' settings: the servlet filter's in a servlet application, the WebFlux filter's in a
     * reactive one.
     *
     * @param enabled whether any filter is registered; {@code false} registers none whatever the routes say
     *     (read by the auto-configurations' conditions, and here so that it is named in the configuration
     *     metadata)
     * @param filterOrder the filters' order in the servlet filter chain, or among the WebFlux filters: after
     *     Spring Security's ({@code -100} in both), so that the client scope can come from the authenticated
     *     principal
     * @param routes the routes put behind the filter, one filter each
     */
    public record Web(@DefaultValue("true") boolean enabled, @DefaultValue("0") int filterOrder,
                      @DefaultValue List<Route> routes) { }

    /**
     * One route behind the {@code IdempotencyFilter}, or the {@code IdempotencyWebFilter} in a reactive application.
     *
     * @param operation the operation its records are scoped to (at most 60 characters)
     * @param urlPatterns the servlet URL patterns the filter is mapped to ({@code /orders/*}); in a reactive
     *     application the same patterns guard the same paths (an exact path, or a prefix ending {@code /*});
     *     an extension pattern ({@code *.json}) fails startup there
     * @param methods the HTTP methods it guards; others pass through
     * @param keyRequired whether a request without {@code Idempotency-Key} is refused (400); a route that
     *     requires one needs its {@code documentation}
     * @param allowAnonymous whether requests that name no client share one anonymous scope instead of
     *     being refused (401)
     * @param allowWaiting whether a concurrent request waits for the first one's response (with
     *     {@code idempotency.policy=wait}) instead of getting 409
     * @param replayedHeaders the response headers stored and replayed with the body
     * @param fingerprintedHeaders the request headers that are part of the fingerprint
     * @param documentation a URI the problem details link to; empty for none
     * @param maxBodyBytes the largest request body the filter reads (413 above it)
     */
    public record Route(String operation,
                        List<String> urlPatterns,
                        @DefaultValue({"POST", "PATCH"}) List<String> methods,
                        @DefaultValue("true") boolean keyRequired,
                        @DefaultValue("false") boolean allowAnonymous,
                        @DefaultValue("false") boolean allowWaiting,
                        @DefaultValue({"Content-Type", "Location"}) List<String> replayedHeaders,
                        @DefaultValue List<String> fingerprintedHeaders,
                        String documentation,
                        @DefaultValue("1048576") int maxBodyBytes) { }
}
