package dev.idemlab.consumer;

import dev.idemlab.idempotency.testsupport.IdempotencyBom;
import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.idempotency.testsupport.TestRedis;
import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40: a service project that imports idempotency-bom under Spring Boot compiles, starts the
 * starter on a real store and charges once for two calls with one key, on the versions its setup
 * resolves: Boot's managed ones under Boot's parent, the BOM's pins with Boot's BOM imported after
 * ours. The same test runs in both consumer modules; each names its setup and its expected versions.
 */
class StarterChargesOnceTest {

    private static final String SETUP = System.getProperty("consumer.setup", "(unnamed setup)");

    private static ConfigurableApplicationContext start(String... properties) {
        String[] args = new String[properties.length + 1];
        args[0] = "--spring.main.web-application-type=none";
        System.arraycopy(properties, 0, args, 1, properties.length);
        return SpringApplication.run(ConsumerApplication.class, args);
    }

    private static void chargesOnce(ConfigurableApplicationContext service) {
        Charges charges = service.getBean(Charges.class);
        String first = charges.charge("key-1", "order-1", 500);
        String retry = charges.charge("key-1", "order-1", 500);
        assertThat(retry).as(SETUP).isEqualTo(first);
        assertThat(charges.made()).as(SETUP + ": charges made for two calls with one key").isEqualTo(1);
    }

    @Test
    void onRedisTwoCallsWithOneKeyChargeOnce() {
        try (TestRedis redis = TestRedis.provide();
             ConfigurableApplicationContext service = start("--idempotency.store=redis",
                     "--idempotency.redis.uri=" + redis.uri(), "--spring.autoconfigure.exclude="
                             + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")) {
            chargesOnce(service);
        }
    }

    @Test
    void onPostgresTwoCallsWithOneKeyChargeOnce() {
        try (LocalPostgres postgres = LocalPostgres.start();
             ConfigurableApplicationContext service = start("--idempotency.store=postgres",
                     "--spring.datasource.url=" + postgres.jdbcUrl(),
                     "--spring.datasource.username=" + postgres.user(),
                     "--spring.datasource.password=" + postgres.password())) {
            chargesOnce(service);
        }
    }

    /**
     * Which versions each setup gets, as the documentation says: with Boot's BOM imported after ours,
     * the BOM's Lettuce, Netty and Reactor; under Boot's parent, Boot's Lettuce (the parent's own entry
     * wins over any import) beside the BOM's Netty and Reactor (its import of Netty's and Reactor's BOMs
     * comes before the parent's), and Boot's PostgreSQL driver (the BOM pins none). The tests above ran
     * on exactly these.
     */
    @Test
    void theVersionsAreTheOnesThisSetupIsDocumentedToGet() {
        String lettuce = RedisClient.class.getPackage().getImplementationVersion();
        String netty = Version.identify().get("netty-handler").artifactVersion();
        String reactor = Flux.class.getPackage().getImplementationVersion();
        String lettucePinned = Boolean.getBoolean("expected.bom-pins") ? IdempotencyBom.property("lettuce.version")
                : System.getProperty("expected.lettuce");
        assertThat(lettuce).as(SETUP).startsWith(lettucePinned + "/");
        assertThat(netty).as(SETUP).isEqualTo(IdempotencyBom.property("netty.version"));
        assertThat(reactor).as(SETUP).isEqualTo(IdempotencyBom.property("reactor.version"));
        if (System.getProperty("expected.postgresql") != null) {
            assertThat(Driver.getVersion()).as(SETUP).endsWith(" " + System.getProperty("expected.postgresql"));
        }
    }
}
