package dev.idemlab.peers.internal;

import com.trendyol.jdempotent.core.annotation.JdempotentRequestPayload;
import com.trendyol.jdempotent.core.annotation.JdempotentResource;
import com.trendyol.jdempotent.core.aspect.IdempotentAspect;
import com.trendyol.jdempotent.core.datasource.InMemoryIdempotentRepository;
import com.trendyol.jdempotent.redis.RedisConfigProperties;
import com.trendyol.jdempotent.redis.RedisIdempotentRepository;
import com.trendyol.jdempotent.redis.RedisSentinelConfiguration;
import dev.idemlab.idempotency.testsupport.LocalRedis;
import dev.idemlab.peers.ChargeReceipt;
import dev.idemlab.peers.ChargeRequest;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.core.convert.support.DefaultConversionService;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.core.RedisTemplate;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Jdempotent (Trendyol): {@code @JdempotentResource} on a Spring bean's method, its
 * {@link IdempotentAspect} applied through a Spring AOP proxy, with the in-memory repository or with
 * the Redis repository of its Spring Boot starter.
 *
 * <p>The starter registers itself through Spring Boot 2's {@code spring.factories}, which Spring Boot 3
 * no longer reads, so its configuration classes are registered here by hand, with the properties its
 * README documents. Its {@code ApplicationConfig} cannot be loaded by Spring 6 (two {@code @Bean}
 * methods share one name, which Spring 6 refuses), so {@link RedisAspect} declares the aspect exactly
 * as that class's one-argument method does. The starter's only connection is Redis Sentinel, so the
 * Redis peer starts a Sentinel (the bundled binary) in front of the given Redis and stops it on
 * {@link #close()}.
 *
 * <p>Thread-safe.
 */
public final class JdempotentPeer implements PeerLibrary {

    static final String MASTER_NAME = "peers";

    private final AnnotationConfigApplicationContext context;
    private final ChargeService service;
    private final StoreKind store;
    private final LocalRedis sentinel;

    private JdempotentPeer(AnnotationConfigApplicationContext context, StoreKind store, LocalRedis sentinel) {
        this.context = context;
        this.service = context.getBean(ChargeService.class);
        this.store = store;
        this.sentinel = sentinel;
    }

    /** The guarded service, as a team writes it. Public so that Spring can proxy it. */
    public interface ChargeService {
        ChargeReceipt charge(ChargeRequest request);
    }

    /** The method Jdempotent guards: the payload's fields make the key. */
    public static class GuardedCharge implements ChargeService {

        private final FakePaymentProvider provider;

        public GuardedCharge(FakePaymentProvider provider) {
            this.provider = provider;
        }

        @Override
        @JdempotentResource(cachePrefix = "peers-charge", ttl = 24, ttlTimeUnit = TimeUnit.HOURS)
        public ChargeReceipt charge(@JdempotentRequestPayload ChargeRequest request) {
            return ChargeReceipt.of(provider.charge(request.orderId(), request.amount(), request.idempotencyKey()));
        }
    }

    /**
     * Proxies beans that match an aspect's pointcut with class-based proxies, as Spring Boot does by
     * default: the aspect reads {@code @JdempotentResource} from the intercepted method's signature,
     * which under an interface-based proxy is the interface's method, without the annotation.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableAspectJAutoProxy(proxyTargetClass = true)
    public static class Proxying { }

    /** The in-memory wiring: the aspect over its default repository. */
    @Configuration(proxyBeanMethods = false)
    public static class InMemory {
        @Bean
        public IdempotentAspect idempotentAspect() {
            return new IdempotentAspect(new InMemoryIdempotentRepository());
        }
    }

    /** The aspect over the starter's Redis repository, as the starter's {@code ApplicationConfig} declares it. */
    @Configuration(proxyBeanMethods = false)
    public static class RedisAspect {
        @Bean
        public IdempotentAspect getIdempotentAspect(RedisTemplate<?, ?> redisTemplate, RedisConfigProperties properties) {
            return new IdempotentAspect(new RedisIdempotentRepository(redisTemplate, properties));
        }
    }

    /** Opens the in-memory peer. */
    public static JdempotentPeer inMemory(FakePaymentProvider provider) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.register(Proxying.class, InMemory.class);
        context.registerBean("chargeService", GuardedCharge.class, () -> new GuardedCharge(provider));
        context.refresh();
        return new JdempotentPeer(context, StoreKind.MEMORY, null);
    }

    /** Opens the Redis peer: a Sentinel in front of {@code redisUri}, and the starter's configuration. */
    public static JdempotentPeer onRedis(FakePaymentProvider provider, String redisUri) {
        RedisAddress master = RedisAddress.parse(redisUri);
        LocalRedis sentinel = LocalRedis.startSentinel(MASTER_NAME, master.host(), master.port());
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        try {
            context.getBeanFactory().setConversionService(new DefaultConversionService());
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("jdempotent", Map.ofEntries(
                    Map.entry("jdempotent.enable", "true"),
                    Map.entry("jdempotent.cryptography.algorithm", "MD5"),
                    Map.entry("jdempotent.cache.redis.database", "0"),
                    Map.entry("jdempotent.cache.redis.password", ""),
                    Map.entry("jdempotent.cache.redis.sentinelHostList", sentinel.host()),
                    Map.entry("jdempotent.cache.redis.sentinelPort", Integer.toString(sentinel.port())),
                    Map.entry("jdempotent.cache.redis.sentinelMasterName", MASTER_NAME),
                    Map.entry("jdempotent.cache.redis.expirationTimeHour", "24"),
                    Map.entry("jdempotent.cache.redis.dialTimeoutSecond", "3"),
                    Map.entry("jdempotent.cache.redis.readTimeoutSecond", "3"),
                    Map.entry("jdempotent.cache.redis.writeTimeoutSecond", "3"),
                    Map.entry("jdempotent.cache.redis.maxRetryCount", "3"),
                    Map.entry("jdempotent.cache.persistReqRes", "true"))));
            context.register(Proxying.class, RedisConfigProperties.class, RedisSentinelConfiguration.class,
                    RedisAspect.class);
            context.registerBean("chargeService", GuardedCharge.class, () -> new GuardedCharge(provider));
            context.refresh();
            return new JdempotentPeer(context, StoreKind.REDIS, sentinel);
        } catch (RuntimeException e) {
            context.close();
            sentinel.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return store == StoreKind.MEMORY ? "jdempotent-memory" : "jdempotent-redis";
    }

    @Override
    public String version() {
        return LibraryVersion.of("com.trendyol", "Jdempotent-core", IdempotentAspect.class);
    }

    @Override
    public String wiring() {
        return store == StoreKind.MEMORY
                ? "@JdempotentResource on a Spring bean, AOP proxy, InMemoryIdempotentRepository"
                : "@JdempotentResource on a Spring bean, AOP proxy, the Redis starter's repository through one Sentinel";
    }

    @Override
    public StoreKind storeKind() {
        return store;
    }

    @Override
    public Object charge(String idempotencyKey, String orderId, long amount) {
        return service.charge(new ChargeRequest(idempotencyKey, orderId, amount));
    }

    @Override
    public void close() {
        try {
            context.close();
        } finally {
            if (sentinel != null) {
                sentinel.close();
            }
        }
    }
}
