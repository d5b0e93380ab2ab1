package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.testsupport.IdempotencyBom;
import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: a service that imports idempotency-bom gets the Lettuce, Netty and Reactor this module's
 * tests ran with. The store contract runs in this test JVM; here is what it ran on.
 */
class RedisStoreRunsOnTheBomsVersionsTest {

    @Test
    void lettuceNettyAndReactorAreTheBomsVersions() {
        assertThat(RedisClient.class.getPackage().getImplementationVersion())
                .startsWith(IdempotencyBom.property("lettuce.version") + "/");
        assertThat(Version.identify().get("netty-handler").artifactVersion())
                .isEqualTo(IdempotencyBom.property("netty.version"));
        assertThat(Flux.class.getPackage().getImplementationVersion())
                .isEqualTo(IdempotencyBom.property("reactor.version"));
    }
}
