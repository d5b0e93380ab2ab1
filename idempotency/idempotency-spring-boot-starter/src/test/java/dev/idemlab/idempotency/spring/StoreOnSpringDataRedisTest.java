package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.testsupport.LocalRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.DefaultEventBus;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 26: a service with Redis through Spring Data Redis, configured by {@code spring.data.redis.host}
 * and {@code port} only (no {@code idempotency.redis.uri}): Boot makes its {@code LettuceConnectionFactory},
 * and the store runs on that factory's client and server. When the context closes, the store closes
 * while the factory's connections still answer, and the factory then shuts its client down itself.
 *
 * <p>The factory's client resources get an event bus that delivers on the publishing thread, so the
 * test sees which connections were opened and closed on the factory's client.
 */
@SpringBootTest(classes = {PaymentsApplication.class, StoreOnSpringDataRedisTest.Probes.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"idempotency.store=redis",
                "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@DirtiesContext
class StoreOnSpringDataRedisTest {

    private static LocalRedis redis;

    @Autowired
    Payments payments;
    @Autowired
    Ledger ledger;
    @Autowired
    IdempotencyCoordinator coordinator;
    @Autowired
    RedisIdempotencyStore store;
    @Autowired
    LettuceConnectionFactory factory;
    @Autowired
    ConnectionEvents events;

    @DynamicPropertySource
    static void springDataRedis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> started().host());
        registry.add("spring.data.redis.port", () -> started().port());
    }

    private static synchronized LocalRedis started() {
        if (redis == null) {
            redis = LocalRedis.start();
        }
        return redis;
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void theStoreRunsOnTheFactorysClientAndServerAndAReplayChargesOnce() throws Exception {
        assertThat(coordinator.store().name()).isEqualTo("redis");
        assertThat(store.config().address()).isEqualTo(redis.address());
        // Nothing has used the factory yet (it connects lazily): the connection its client opened is the store's.
        assertThat(events.list).filteredOn(ConnectionActivatedEvent.class::isInstance).isNotEmpty();

        String order = UUID.randomUUID().toString();
        Charge first = payments.charge("key-" + order, new ChargeRequest(order, 1200), null);
        Charge replay = payments.charge("key-" + order, new ChargeRequest(order, 1200), null);
        assertThat(replay).isEqualTo(first);
        assertThat(ledger.chargesOf(order)).containsExactly(first.id());
    }

    @Test
    void onCloseTheStoreClosesWhileTheFactoryAnswersThenTheFactoryClosesItsClient() throws Exception {
        // Its own run of the same application: the test framework's context is the framework's to close. The
        // client name marks its connections, the factory's and (the store takes the factory's settings) the store's.
        SpringApplicationBuilder application = new SpringApplicationBuilder(PaymentsApplication.class, Probes.class,
                ClosingProbe.class)
                .web(WebApplicationType.NONE)
                .properties("idempotency.store=redis",
                        "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                        "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.client-name=closing-app");
        LettuceConnectionFactory closingFactory;
        RedisClient factorysClient;
        FactoryStopProbe closingProbe;
        try (ConfigurableApplicationContext app = application.run()) {
            closingFactory = app.getBean(LettuceConnectionFactory.class);
            factorysClient = (RedisClient) closingFactory.getRequiredNativeClient();
            closingProbe = app.getBean(FactoryStopProbe.class);
            String order = UUID.randomUUID().toString();
            Charge first = app.getBean(Payments.class).charge("key-" + order, new ChargeRequest(order, 300), null);
            assertThat(app.getBean(Payments.class).charge("key-" + order, new ChargeRequest(order, 300), null))
                    .isEqualTo(first);
            app.getBean(StringRedisTemplate.class).opsForValue().set("before-close", "1");   // its shared connection
            assertThat(namedConnections("closing-app")).isGreaterThanOrEqualTo(2);
        }

        assertThat(closingProbe.storeAnsweredAfterItClosed).as("the store was closed before the factory stopped").isFalse();
        assertThat(closingProbe.storeConnectionsClosedOnTheFactorysClient).isPositive();
        assertThat(closingProbe.pingWhileFactoryRuns).isEqualTo("PONG");
        assertThat(closingProbe.readBackWhileFactoryRuns).isEqualTo("after-the-store-closed");
        assertThat(closingFactory.isRunning()).isFalse();
        // The factory shut its client down: none of the application's connections is left, and it connects no more.
        await().atMost(Duration.ofSeconds(10)).until(() -> namedConnections("closing-app") == 0);
        assertThat(catchConnect(factorysClient)).isNotNull();
    }

    /** How many connections the server has that are named {@code name}. */
    private static long namedConnections(String name) {
        RedisClient testsOwn = RedisClient.create();
        try (StatefulRedisConnection<String, String> own = testsOwn.connect(RedisURI.create(redis.uri()))) {
            return own.sync().clientList().lines().filter(line -> line.contains(" name=" + name + " ")).count();
        } finally {
            testsOwn.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static Throwable catchConnect(RedisClient client) {
        try {
            client.connect(RedisURI.create(redis.uri())).close();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** The recording event bus on the factory's client resources. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Probes {

        @Bean
        ConnectionEvents connectionEvents() {
            return new ConnectionEvents();
        }

        @Bean
        ClientResourcesBuilderCustomizer recordingEventBus(ConnectionEvents events) {
            DefaultEventBus bus = new DefaultEventBus(Schedulers.immediate());
            bus.get().subscribe(events.list::add);
            return builder -> builder.eventBus(bus);
        }

    }

    /** The probe that runs between the store's close and the factory's stop. */
    @TestConfiguration(proxyBeanMethods = false)
    static class ClosingProbe {

        @Bean
        FactoryStopProbe factoryStopProbe(LettuceConnectionFactory factory, StringRedisTemplate template,
                                          IdempotencyStore store, ConnectionEvents events) {
            return new FactoryStopProbe(factory, template, store, events);
        }
    }

    /** Every event of the factory's client resources, in order. */
    static final class ConnectionEvents {
        final List<Event> list = new CopyOnWriteArrayList<>();

        long deactivations() {
            return list.stream().filter(ConnectionDeactivatedEvent.class::isInstance).count();
        }
    }

    /**
     * Stops in the factory's phase, before the factory (it depends on it), and after the starter closed
     * the store (one phase up): there it asks the store and the factory's connections.
     */
    static final class FactoryStopProbe implements SmartLifecycle {

        private final LettuceConnectionFactory factory;
        private final StringRedisTemplate template;
        private final IdempotencyStore store;
        private final ConnectionEvents events;
        private volatile boolean running;
        volatile Boolean storeAnsweredAfterItClosed;
        volatile long storeConnectionsClosedOnTheFactorysClient;
        volatile String pingWhileFactoryRuns;
        volatile String readBackWhileFactoryRuns;

        FactoryStopProbe(LettuceConnectionFactory factory, StringRedisTemplate template, IdempotencyStore store,
                         ConnectionEvents events) {
            this.factory = factory;
            this.template = template;
            this.store = store;
            this.events = events;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            try {
                store.lookup("probe");
                storeAnsweredAfterItClosed = true;
            } catch (IdempotencyStoreException e) {
                storeAnsweredAfterItClosed = false;
            }
            // The factory's own connection is still up: a connection gone from its client is the store's.
            await().atMost(Duration.ofSeconds(10)).until(() -> events.deactivations() > 0);
            storeConnectionsClosedOnTheFactorysClient = events.deactivations();
            pingWhileFactoryRuns = template.execute((RedisCallback<String>) RedisConnection::ping);
            template.opsForValue().set("probe", "after-the-store-closed");
            readBackWhileFactoryRuns = template.opsForValue().get("probe");
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return factory.getPhase();
        }
    }
}
