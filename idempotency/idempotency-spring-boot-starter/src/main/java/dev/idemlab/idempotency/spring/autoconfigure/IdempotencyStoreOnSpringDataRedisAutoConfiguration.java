package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.IdempotencyProperties;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import io.lettuce.core.RedisClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code idempotency.store=redis} in an application with Spring Data Redis's
 * {@code LettuceConnectionFactory} (one) and no {@code RedisClient} bean of its own: the store runs on
 * the factory's client. It connects to {@code idempotency.redis.uri} when that is set, else to the
 * factory's own server with its credentials and TLS ({@link ConnectionFactoryClient}), so
 * {@code spring.data.redis.*} is enough. A factory whose client or server the store cannot take (a
 * cluster, Sentinel, a Unix socket, StartTLS, a credentials provider) leaves the store to a client of
 * its own on {@code idempotency.redis.uri}, and startup fails saying why when that is not set.
 *
 * <p>The store never closes the factory's client: it closes its own two connections just before the
 * factory stops ({@link StoreClosingBeforeConnectionFactory}), and the factory shuts its client down
 * itself. Runs before {@link IdempotencyStoreAutoConfiguration}, whose Redis store then stands aside.
 */
@AutoConfiguration(before = IdempotencyStoreAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({RedisIdempotencyStore.class, LettuceConnectionFactory.class})
@ConditionalOnProperty(name = "idempotency.store", havingValue = "redis")
@ConditionalOnSingleCandidate(LettuceConnectionFactory.class)
@ConditionalOnMissingBean({IdempotencyStore.class, RedisClient.class})
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyStoreOnSpringDataRedisAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyStoreOnSpringDataRedisAutoConfiguration.class);

    /**
     * Closed by {@link StoreClosingBeforeConnectionFactory} before the factory stops, and by its destroy
     * method too (then a no-op), so that a context whose startup failed before that bean was made still
     * closes it.
     */
    @Bean(destroyMethod = "close")
    RedisIdempotencyStore idempotencyStore(IdempotencyProperties properties, LettuceConnectionFactory factory) {
        String unusable = ConnectionFactoryClient.unusableBecause(factory);
        String uri = properties.redis().uri();
        if (uri == null || uri.isBlank()) {
            if (unusable != null) {
                throw new IllegalStateException("idempotency.store=redis cannot run on the application's "
                        + "LettuceConnectionFactory: " + unusable + ". Set idempotency.redis.uri "
                        + "(redis://host:port): the store then connects to it on a client of its own");
            }
            uri = ConnectionFactoryClient.uri(factory);
        }
        RedisStoreConfig config = IdempotencyStoreAutoConfiguration.RedisStore.redisConfig(properties, uri);
        if (unusable != null || config.cluster()) {
            LOG.info("the Redis store makes its own client for {}: the LettuceConnectionFactory's cannot serve it ({})",
                    config.address(), unusable != null ? unusable : "a Redis Cluster uri");
            return new RedisIdempotencyStore(config);
        }
        return new RedisIdempotencyStore(ConnectionFactoryClient.client(factory), config);
    }

    @Bean
    StoreClosingBeforeConnectionFactory idempotencyStoreClosingBeforeConnectionFactory(
            RedisIdempotencyStore idempotencyStore, LettuceConnectionFactory factory) {
        return new StoreClosingBeforeConnectionFactory(idempotencyStore, factory);
    }
}
