package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.IdempotencyProperties;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import io.lettuce.core.RedisClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/**
 * The {@link IdempotencyStore} named by {@code idempotency.store}, unless the application defines its
 * own store bean. The stores made here are closed with the context ({@code destroyMethod}); a store
 * the application defines is its own to close. The PostgreSQL store runs on the application's
 * {@code DataSource} and never closes it. The Redis store connects to {@code idempotency.redis.uri} on
 * the application's Lettuce {@code RedisClient} when it has exactly one such bean (closing only the
 * store's own connections); else, with Spring Data Redis's {@code LettuceConnectionFactory}, on that
 * factory's client and (without {@code idempotency.redis.uri}) its server, made by
 * {@link IdempotencyStoreOnSpringDataRedisAutoConfiguration} before this runs; else on a client of its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyStoreAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyStoreAutoConfiguration.class);

    /** {@code idempotency.store=memory}, the default. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "idempotency.store", havingValue = "memory", matchIfMissing = true)
    static final class MemoryStore {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(IdempotencyStore.class)
        InMemoryIdempotencyStore idempotencyStore() {
            LOG.warn("idempotency.store is memory: records live in this process only, are lost on restart and "
                    + "are not shared with other instances, so a retry that reaches another instance runs again; "
                    + "set idempotency.store=redis or postgres for a service");
            return new InMemoryIdempotencyStore();
        }
    }

    /** {@code idempotency.store=redis}, on the application's {@code RedisClient} or a client of its own. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisIdempotencyStore.class)
    @ConditionalOnProperty(name = "idempotency.store", havingValue = "redis")
    static final class RedisStore {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(IdempotencyStore.class)
        RedisIdempotencyStore idempotencyStore(IdempotencyProperties properties, ObjectProvider<RedisClient> clients) {
            IdempotencyProperties.Redis redis = properties.redis();
            if (redis.uri() == null || redis.uri().isBlank()) {
                throw new IllegalStateException("idempotency.store=redis needs idempotency.redis.uri "
                        + "(redis://host:port), or Spring Data Redis's LettuceConnectionFactory (spring.data.redis.*)"
                        + ": the Redis store connects to it");
            }
            RedisStoreConfig built = redisConfig(properties, redis.uri());
            RedisClient applications = clients.getIfUnique();
            // A RedisClient serves one server: a Redis Cluster store makes its own cluster client.
            return applications != null && !built.cluster() ? new RedisIdempotencyStore(applications, built)
                    : new RedisIdempotencyStore(built);
        }

        /**
         * The Redis store's settings from the properties. Here, inside the class that is loaded only with
         * idempotency-redis present, so that the auto-configuration's own class names no Redis type: a
         * service without the Redis module (on the memory or PostgreSQL store) failed at startup
         * introspecting it.
         */
        static RedisStoreConfig redisConfig(IdempotencyProperties properties, String uri) {
            RedisStoreConfig.Builder config = RedisStoreConfig.custom().uri(uri)
                    .commandTimeout(properties.redis().commandTimeout());
            if (hasText(properties.keyPrefix())) {
                config.keyPrefix(properties.keyPrefix());
            }
            return config.build();
        }
    }

    /** {@code idempotency.store=postgres}, on the application's {@code DataSource}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(PostgresIdempotencyStore.class)
    @ConditionalOnProperty(name = "idempotency.store", havingValue = "postgres")
    static final class PostgresStore {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(IdempotencyStore.class)
        PostgresIdempotencyStore idempotencyStore(IdempotencyProperties properties,
                                                  ObjectProvider<DataSource> dataSource) {
            DataSource shared = dataSource.getIfUnique();
            if (shared == null) {
                throw new IllegalStateException("idempotency.store=postgres needs one DataSource bean (spring.datasource.*"
                        + " or your own): the PostgreSQL store runs on the application's DataSource");
            }
            PostgresStoreConfig.Builder config = PostgresStoreConfig.forDataSource().table(properties.postgres().table())
                    .renewalPoolSize(properties.postgres().renewalPoolSize());
            if (hasText(properties.keyPrefix())) {
                config.namespacePrefix(properties.keyPrefix());
            }
            return PostgresIdempotencyStore.open(shared, config.build());
        }
    }

    private static boolean hasText(String value) {
        return value != null && !value.isEmpty();
    }
}
