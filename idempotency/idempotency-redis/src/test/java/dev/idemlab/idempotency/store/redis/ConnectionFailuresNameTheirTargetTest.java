package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 40, defect 6: a connection failure names where the store tried to connect (host, port,
 * database and user, never the password), so that a wrong port or database in a service's
 * configuration is read in its logs.
 */
class ConnectionFailuresNameTheirTargetTest {

    private static int portWhereNothingListens() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aStoreWhoseServerIsNotThereNamesHostPortDatabaseAndUser() throws Exception {
        int port = portWhereNothingListens();
        RedisStoreConfig config = RedisStoreConfig.custom().uri("redis://app:s3cret@127.0.0.1:" + port + "/3")
                .commandTimeout(Duration.ofMillis(500)).build();
        try (RedisIdempotencyStore store = new RedisIdempotencyStore(config)) {
            Throwable thrown = catchThrowable(() -> store.lookup("k1"));
            assertThat(thrown).isInstanceOf(IdempotencyStoreException.class);
            assertThat(thrown.getMessage()).contains("at 127.0.0.1:" + port + ", database 3, user app")
                    .doesNotContain("s3cret");
        }
    }

    @Test
    void aPasswordAloneIsNeverTakenForAUser() {
        RedisStoreConfig config = RedisStoreConfig.custom().uri("redis://s3cret@127.0.0.1:6390").build();
        assertThat(config.target()).isEqualTo("127.0.0.1:6390, database 0, user default");
    }
}
