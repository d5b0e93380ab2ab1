package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.testsupport.LocalRedis;
import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code @Idempotent} beans on a real Redis (the bundled binary on an ephemeral port). */
@SpringBootTest(classes = PaymentsApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"idempotency.store=redis",
                "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@DirtiesContext
class IdempotentBeansOnRedisTest extends IdempotentBeansContract {

    private static LocalRedis redis;

    @DynamicPropertySource
    static void redisUri(DynamicPropertyRegistry registry) {
        registry.add("idempotency.redis.uri", IdempotentBeansOnRedisTest::startedUri);
    }

    private static synchronized String startedUri() {
        if (redis == null) {
            redis = LocalRedis.start();
        }
        return redis.uri();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    String expectedStore() {
        return "redis";
    }
}
