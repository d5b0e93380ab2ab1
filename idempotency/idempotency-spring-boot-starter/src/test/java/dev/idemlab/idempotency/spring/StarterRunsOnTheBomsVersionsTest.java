package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.testsupport.IdempotencyBom;
import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: a Spring Boot service that imports idempotency-bom before Boot's BOM gets the Lettuce, Netty
 * and Reactor the starter's tests ran with (Boot's own would be Netty 4.2): the @SpringBootTests on
 * Redis run in this test JVM, on these.
 */
class StarterRunsOnTheBomsVersionsTest {

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
