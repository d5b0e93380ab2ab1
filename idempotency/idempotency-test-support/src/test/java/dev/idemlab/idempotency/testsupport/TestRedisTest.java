package dev.idemlab.idempotency.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** DESIGN section 5's order for tests: a URL, then redis-server on PATH, then the bundled binary. */
class TestRedisTest {

    @Test
    void aServerGivenByUrlComesFirstKeepsRunningAndLosesOnlyTheKeysUnderTheTestsPrefix() throws Exception {
        try (LocalRedis users = LocalRedis.start()) {
            TestRedis redis = TestRedis.provide(users.uri() + "/3", "");
            try (RespConnection connection = RespConnection.open(users.host(), users.port(), false, 1000, 5000)) {
                connection.command("SELECT", "3");
                assertThat(redis.origin()).isEqualTo(ServerOrigin.URL);
                assertThat(redis.isPrivate()).isFalse();
                assertThat(redis.local()).isEmpty();
                assertThat(redis.address()).isEqualTo(users.address());
                assertThat(redis.version()).isEqualTo(users.version());
                assertThat(redis.toString()).contains(users.version()).contains(users.address())
                        .contains("given by URL").contains(TestRedis.URL_ENV);
                connection.command("SET", redis.keyPrefix() + "a", "1");
                connection.command("SET", redis.keyPrefix() + "b", "2");
                connection.command("SET", "users:own", "kept");

                redis.close();

                assertThat(users.isAlive()).isTrue();
                assertThat(connection.command("EXISTS", redis.keyPrefix() + "a", redis.keyPrefix() + "b")).isEqualTo(0L);
                assertThat(connection.command("GET", "users:own")).isEqualTo("kept");
            }
        }
    }

    @Test
    void eachProviderHasAKeyPrefixOfItsOwn() {
        try (LocalRedis users = LocalRedis.start();
             TestRedis one = TestRedis.provide(users.uri(), "");
             TestRedis two = TestRedis.provide(users.uri(), "")) {
            assertThat(one.keyPrefix()).startsWith("idemlab-test:").isNotEqualTo(two.keyPrefix());
        }
    }

    @Test
    void aRedisServerOnPathComesBeforeTheBundledOne(@TempDir Path bin) throws Exception {
        Path onPath = Files.createSymbolicLink(bin.resolve("redis-server"), LocalRedis.bundledExecutable());
        TestRedis redis = TestRedis.provide(null, "/nonexistent-dir:" + bin);
        long pid;
        try {
            assertThat(redis.origin()).isEqualTo(ServerOrigin.SYSTEM);
            assertThat(redis.toString()).contains("system binary on PATH").contains(onPath.toString());
            pid = redis.local().orElseThrow().pid();
        } finally {
            redis.close();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void withoutUrlOrPathTheBundledBinaryIsStartedAndStoppedOnClose() {
        TestRedis redis = TestRedis.provide(null, "");
        LocalRedis local = redis.local().orElseThrow();
        try {
            assertThat(redis.origin()).isEqualTo(ServerOrigin.BUNDLED);
            assertThat(redis.isPrivate()).isTrue();
            assertThat(redis.uri()).isEqualTo(local.uri());
            assertThat(redis.version()).matches("\\d+\\.\\d+.*");
            assertThat(redis.toString()).contains("bundled binary").contains(local.address());
        } finally {
            redis.close();
        }
        assertThat(local.isAlive()).isFalse();
    }

    @Test
    void aPrivateServerIsNeverTheOneGivenByUrl() {
        try (TestRedis redis = TestRedis.providePrivate(List.of())) {
            assertThat(redis.isPrivate()).isTrue();
            assertThat(redis.origin()).isNotEqualTo(ServerOrigin.URL);
        }
    }

    @Test
    void aUrlWhereNothingAnswersFailsNamingTheVariableNotFallingBackToAPrivateServer() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LocalRedis.HOST))) {
            port = socket.getLocalPort();
        }
        assertThatThrownBy(() -> TestRedis.provide("redis://:secret@127.0.0.1:" + port, ""))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(TestRedis.URL_ENV).hasMessageContaining("127.0.0.1:" + port)
                .hasMessageContaining("does not answer").hasMessageNotContaining("secret");
    }

    @Test
    void aClusterOrMalformedUrlIsRefusedWithTheFormExpected() {
        assertThatThrownBy(() -> TestRedis.provide("redis-cluster://127.0.0.1:7000", ""))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("redis://");
        assertThatThrownBy(() -> TestRedis.provide("redis://127.0.0.1:6379/db", ""))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("database number");
    }
}
