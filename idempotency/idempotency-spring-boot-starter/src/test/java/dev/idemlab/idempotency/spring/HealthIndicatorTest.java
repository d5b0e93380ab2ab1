package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyHealthAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.testsupport.LocalRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's health indicator: DOWN with the reason when the store cannot be reached, and switchable off. */
class HealthIndicatorTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class));

    @Test
    void aRedisThatIsGoneIsDown() throws Exception {
        LocalRedis redis = LocalRedis.start();
        try {
            runner.withPropertyValues("idempotency.store=redis", "idempotency.redis.uri=" + redis.uri())
                    .run(context -> {
                        IdempotencyStoreHealthIndicator indicator = context.getBean(IdempotencyStoreHealthIndicator.class);
                        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
                        redis.close();
                        Health down = indicator.health();
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails()).containsKey("error").containsEntry("store", "redis");
                    });
        } finally {
            redis.close();
        }
    }

    @Test
    void itCanBeSwitchedOffLikeBootsOwn() {
        runner.withPropertyValues("management.health.idempotency.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyStoreHealthIndicator.class));
    }
}
