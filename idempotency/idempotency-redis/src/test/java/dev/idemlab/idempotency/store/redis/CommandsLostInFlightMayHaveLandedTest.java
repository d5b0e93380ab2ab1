package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command whose connection reset after it was written was classified as a server that could not be
 * reached, as if it never landed, so a reserve that ran on the server was never settled. Each failure
 * here is built as Lettuce reports it (see {@code DefaultEndpoint.validateWrite}, {@code
 * CommandHandler.exceptionCaught} and {@code DefaultEndpoint.notifyDrainQueuedCommands}); the real reset
 * through a proxy is in {@code LandedTriesAreSettledTest}.
 */
class CommandsLostInFlightMayHaveLandedTest {

    @Test
    void commandsRejectedBeforeTheyWereSentNeverLanded() {
        assertThat(RedisScriptClient.classify(new RedisException("Currently not connected. Commands are rejected.")))
                .isEqualTo(Failure.UNREACHABLE);
        assertThat(RedisScriptClient.classify(new RedisException("Connection is closed")))
                .isEqualTo(Failure.UNREACHABLE);
        assertThat(RedisScriptClient.classify(new RedisConnectionException("Unable to connect to 127.0.0.1:6379",
                new ConnectException("Connection refused")))).isEqualTo(Failure.UNREACHABLE);
    }

    @Test
    void commandsWhoseConnectionWentWhileTheyWereInFlightMayHaveLanded() {
        assertThat(RedisScriptClient.classify(new RedisException(new SocketException("Connection reset"))))
                .isEqualTo(Failure.TIMEOUT);
        assertThat(RedisScriptClient.classify(new RedisException(new IOException("Connection reset by peer"))))
                .isEqualTo(Failure.TIMEOUT);
        assertThat(RedisScriptClient.classify(new RedisException("Connection disconnected")))
                .isEqualTo(Failure.TIMEOUT);
        assertThat(RedisScriptClient.classify(new RedisException("Connection closed"))).isEqualTo(Failure.TIMEOUT);
        assertThat(RedisScriptClient.classify(new RedisCommandTimeoutException("Command timed out after 1 second(s)")))
                .isEqualTo(Failure.TIMEOUT);
    }
}
