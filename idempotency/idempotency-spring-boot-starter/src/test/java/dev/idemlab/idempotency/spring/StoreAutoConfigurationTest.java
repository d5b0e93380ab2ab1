package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreOnSpringDataRedisAutoConfiguration;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.testsupport.LocalRedis;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Which store and coordinator the starter makes, for each condition. */
class StoreAutoConfigurationTest {

    private static LocalRedis redis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                    IdempotencyStoreOnSpringDataRedisAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyAspectAutoConfiguration.class));

    @BeforeAll
    static void startRedis() throws Exception {
        redis = LocalRedis.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void withoutAStoreSettingTheStoreIsInMemory() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(InMemoryIdempotencyStore.class);
            IdempotencyCoordinator coordinator = context.getBean(IdempotencyCoordinator.class);
            assertThat(coordinator.store().name()).isEqualTo("memory");
            assertThat(coordinator.config().policy()).isEqualTo(InFlightPolicy.WAIT);
            assertThat(coordinator.config().lease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(coordinator.config().ttl()).isEqualTo(Duration.ofHours(24));
            assertThat(coordinator.config().storeFailureMode()).isEqualTo(StoreFailureMode.FAIL_OPEN);
        });
    }

    @Test
    void propertiesReachTheCoordinatorsConfig() {
        runner.withPropertyValues("idempotency.policy=raise", "idempotency.lease=10s", "idempotency.ttl=1h",
                        "idempotency.store-failure-mode=fail-closed", "idempotency.store-patience=500ms")
                .run(context -> {
                    IdempotencyCoordinator coordinator = context.getBean(IdempotencyCoordinator.class);
                    assertThat(coordinator.config().policy()).isEqualTo(InFlightPolicy.RAISE);
                    assertThat(coordinator.config().lease()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(coordinator.config().ttl()).isEqualTo(Duration.ofHours(1));
                    assertThat(coordinator.config().storeFailureMode()).isEqualTo(StoreFailureMode.FAIL_CLOSED);
                    assertThat(coordinator.config().storePatience()).isEqualTo(Duration.ofMillis(500));
                });
    }

    @Test
    void aLeaseNoShorterThanTheTtlFailsStartupWithTheLibrarysRule() {
        runner.withPropertyValues("idempotency.lease=2h", "idempotency.ttl=1h").run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = rootCause(context.getStartupFailure());
            assertThat(cause).isInstanceOf(InvalidIdempotencyConfigException.class);
            assertThat(((InvalidIdempotencyConfigException) cause).rule()).contains("lease");
        });
    }

    @Test
    void aTtlBelowItsFloorFailsStartupWithTheLibrarysRule() {
        runner.withPropertyValues("idempotency.ttl=5s", "idempotency.lease=1s").run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = rootCause(context.getStartupFailure());
            assertThat(cause).isInstanceOf(InvalidIdempotencyConfigException.class);
            assertThat(((InvalidIdempotencyConfigException) cause).setting()).isEqualTo("ttl");
        });
    }

    @Test
    void redisIsTheStoreWhenNamedWithItsUri() {
        runner.withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri(),
                "idempotency.key-prefix=orders:").run(context -> {
                    assertThat(context).hasSingleBean(RedisIdempotencyStore.class);
                    RedisIdempotencyStore store = context.getBean(RedisIdempotencyStore.class);
                    assertThat(store.config().keyPrefix()).isEqualTo("orders:");
                    assertThat(context.getBean(IdempotencyCoordinator.class).store().name()).isEqualTo("redis");
                });
    }

    @Test
    void redisWithoutAUriFailsStartupSayingWhatIsMissing() {
        runner.withPropertyValues("idempotency.store=redis").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("idempotency.redis.uri");
        });
    }

    @Test
    void aMalformedRedisUriFailsStartupWithTheLibrarysRule() {
        runner.withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=http://example").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).isInstanceOf(InvalidIdempotencyConfigException.class);
        });
    }

    @Test
    void aStoreWhoseModuleIsAbsentFailsStartupNamingTheModule() {
        runner.withClassLoader(new FilteredClassLoader(RedisIdempotencyStore.class))
                .withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("idempotency-redis");
                });
    }

    @Test
    void postgresWithoutADataSourceFailsStartupSayingSo() {
        runner.withPropertyValues("idempotency.store=postgres").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("DataSource");
        });
    }

    @Test
    void theApplicationsOwnStoreReplacesTheDefaultAndIsNotClosedByTheStarter() {
        ClosableStore own = new ClosableStore();
        // Spring itself would close an AutoCloseable bean of the application's; this shows the starter does not.
        runner.withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri())
                .withBean("myStore", IdempotencyStore.class, () -> own, definition -> definition.setDestroyMethodName(""))
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisIdempotencyStore.class);
                    assertThat(context.getBean(IdempotencyCoordinator.class).store().name()).isEqualTo("memory");
                });
        assertThat(own.closed).isFalse();
    }

    @Test
    void theApplicationsOwnCoordinatorReplacesTheDefault() {
        IdempotencyCoordinator own = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        runner.withBean(IdempotencyCoordinator.class, () -> own)
                .run(context -> assertThat(context.getBean(IdempotencyCoordinator.class)).isSameAs(own));
    }

    @Test
    void theStoresTheStarterMakesAreClosedWithTheContext() {
        runner.run(context -> assertThat(context.getBeanFactory().getBeanDefinition("idempotencyStore")
                .getDestroyMethodName()).isEqualTo("close"));
        runner.withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri())
                .run(context -> assertThat(context.getBeanFactory().getBeanDefinition("idempotencyStore")
                        .getDestroyMethodName()).isEqualTo("close"));
    }

    @Test
    void redisRunsOnTheApplicationsOwnLettuceClientAndLeavesItRunningWhenTheContextCloses() {
        RedisClient applications = RedisClient.create();   // as Spring's connection factory makes one: no URI
        try {
            runner.withBean(RedisClient.class, () -> applications, bean -> bean.setDestroyMethodName(""))
                    .withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri())
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
                        IdempotencyCoordinator coordinator = context.getBean(IdempotencyCoordinator.class);
                        IdempotentCall call = IdempotentCall.of("payment.charge", "on-the-apps-client",
                                Fingerprint.ofFields(Map.of("amount", 500)));
                        AtomicInteger charges = new AtomicInteger();
                        for (int i = 0; i < 2; i++) {
                            assertThat(coordinator.execute(call, ResultCodec.json(String.class),
                                    () -> "ch_" + charges.incrementAndGet())).isEqualTo("ch_1");
                        }
                        assertThat(charges).hasValue(1);
                    });
            // the context closed the store: its connections are gone, the application's client is not
            try (StatefulRedisConnection<String, String> connection = applications.connect(RedisURI.create(redis.uri()))) {
                assertThat(connection.sync().ping()).isEqualTo("PONG");
            }
        } finally {
            applications.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void withSpringDataRedissFactoryAndNoUriTheStoreConnectsToTheFactorysServerOnItsClient() {
        runner.withBean(LettuceConnectionFactory.class,
                        () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())))
                .withPropertyValues("idempotency.store=redis")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
                    assertThat(context.getBean(RedisIdempotencyStore.class).config().address()).isEqualTo(redis.address());
                    // what closes the store before the factory stops
                    assertThat(context.getBeansOfType(SmartLifecycle.class)).containsKey(
                            "idempotencyStoreClosingBeforeConnectionFactory");
                    assertChargesOnce(context.getBean(IdempotencyCoordinator.class), "on-the-factorys-client");
                });
    }

    @Test
    void theApplicationsOwnRedisClientComesBeforeTheFactorysAndNeedsTheUri() {
        RedisClient applications = RedisClient.create();
        try {
            runner.withBean(RedisClient.class, () -> applications, bean -> bean.setDestroyMethodName(""))
                    .withBean(LettuceConnectionFactory.class,
                            () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())))
                    .withPropertyValues("idempotency.store=redis")
                    .run(context -> {
                        assertThat(context).hasFailed();
                        assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("idempotency.redis.uri");
                    });
        } finally {
            applications.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void aClusterFactoryWithoutAUriFailsStartupSayingWhyAndWhatToSet() {
        runner.withBean(LettuceConnectionFactory.class,
                        () -> new LettuceConnectionFactory(new RedisClusterConfiguration(List.of(redis.address()))))
                .withPropertyValues("idempotency.store=redis")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("Redis Cluster")
                            .hasMessageContaining("idempotency.redis.uri");
                });
    }

    @Test
    void aSentinelFactoryLeavesTheStoreToAClientOfItsOwnOnTheUri() {
        // The factory's client is never used: no Sentinel has to answer.
        runner.withBean(LettuceConnectionFactory.class, () -> new LettuceConnectionFactory(
                        new RedisSentinelConfiguration("mymaster", java.util.Set.of("127.0.0.1:1"))))
                .withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
                    assertChargesOnce(context.getBean(IdempotencyCoordinator.class), "beside-a-sentinel-factory");
                });
    }

    @Test
    void withoutSpringDataRedisTheUriIsStillRequired() {
        runner.withClassLoader(new FilteredClassLoader(LettuceConnectionFactory.class))
                .withPropertyValues("idempotency.store=redis")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("idempotency.redis.uri");
                });
    }

    private static void assertChargesOnce(IdempotencyCoordinator coordinator, String key) {
        IdempotentCall call = IdempotentCall.of("payment.charge", key, Fingerprint.ofFields(Map.of("amount", 500)));
        AtomicInteger charges = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            assertThat(coordinator.execute(call, ResultCodec.json(String.class),
                    () -> "ch_" + charges.incrementAndGet())).isEqualTo("ch_1");
        }
        assertThat(charges).hasValue(1);
    }

    static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The application's own store: the memory store, which records whether anyone closed it. */
    static final class ClosableStore extends dev.idemlab.idempotency.spi.ForwardingIdempotencyStore {
        volatile boolean closed;

        ClosableStore() {
            super(new InMemoryIdempotencyStore());
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
