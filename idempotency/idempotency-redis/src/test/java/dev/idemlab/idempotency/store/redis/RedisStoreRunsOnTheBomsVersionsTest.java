package dev.idemlab.idempotency.store.redis;

import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: a service that imports idempotency-bom gets the Lettuce, Netty and Reactor this module's
 * tests ran with. The store contract runs in this test JVM; here is what it ran on.
 */
class RedisStoreRunsOnTheBomsVersionsTest {

    @Test
    void lettuceNettyAndReactorAreTheBomsVersions() throws Exception {
        assertThat(RedisClient.class.getPackage().getImplementationVersion()).startsWith(bom("lettuce.version") + "/");
        assertThat(Version.identify().get("netty-handler").artifactVersion()).isEqualTo(bom("netty.version"));
        assertThat(Flux.class.getPackage().getImplementationVersion()).isEqualTo(bom("reactor.version"));
    }

    /** A property of idempotency-bom's pom, the file a service imports. */
    static String bom(String property) throws Exception {
        String pom = Files.readString(Path.of("..", "idempotency-bom", "pom.xml"));
        Matcher value = Pattern.compile("<" + Pattern.quote(property) + ">([^<]+)</").matcher(pom);
        assertThat(value.find()).as(property + " in idempotency-bom").isTrue();
        return value.group(1).trim();
    }
}
