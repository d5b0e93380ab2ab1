package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.testsupport.LocalRedis;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A private redis-server that cannot be started is a provisioning error, whatever the start threw. */
class RedisProcessTest {

    /** It used to reach the CLI raw: only IllegalStateException was turned into a provisioning error. */
    @Test
    void noFreePortIsAProvisioningErrorNotARawUncheckedIoException() {
        assertThatThrownBy(() -> RedisProcess.start(LocalRedis.bundledExecutable(), Origin.BUNDLED, List.of(), List.of(),
                (executable, args, started) -> {
                    throw new UncheckedIOException("no free port on 127.0.0.1", new IOException("Too many open files"));
                }))
                .isInstanceOf(ProvisioningException.class)
                .hasMessageContaining("no free port on 127.0.0.1").hasMessageContaining("Too many open files")
                .hasCauseInstanceOf(UncheckedIOException.class);
    }

    @Test
    void aServerThatDoesNotStartIsAProvisioningErrorWithItsOwnWords() {
        assertThatThrownBy(() -> RedisProcess.start(LocalRedis.bundledExecutable(), Origin.BUNDLED, List.of(), List.of(),
                (executable, args, started) -> {
                    throw new IllegalStateException("redis-server exited with 1 before it answered PING");
                }))
                .isInstanceOf(ProvisioningException.class)
                .hasMessage("redis-server exited with 1 before it answered PING");
    }
}
