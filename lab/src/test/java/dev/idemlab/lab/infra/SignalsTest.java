package dev.idemlab.lab.infra;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A pause is recorded as begun once its process is stopped, not when the signal was asked for: the
 * sample's nemesis once counted a charge its JVM made in the 150 ms {@code kill} took to start as one
 * made during the pause.
 */
class SignalsTest {

    private Process process;

    @AfterEach
    void stop() {
        if (process != null) {
            Signals.sendQuietly("CONT", process.pid());
            process.destroyForcibly();
        }
    }

    @Test
    void aStoppedProcessIsSeenStoppedAndARunningOneIsNot() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc here");
        process = new ProcessBuilder("sleep", "60").start();

        assertThat(Signals.awaitStopped(process.pid(), Duration.ofMillis(50))).as("running").isFalse();
        Signals.send("STOP", process.pid());
        assertThat(Signals.awaitStopped(process.pid(), Duration.ofSeconds(10))).as("stopped").isTrue();
        Signals.send("CONT", process.pid());
        assertThat(Signals.awaitStopped(process.pid(), Duration.ofMillis(50))).as("continued").isFalse();
    }

    @Test
    void aProcessThatIsGoneIsNotWaitedFor() throws Exception {
        process = new ProcessBuilder("true").start();
        process.waitFor();

        assertThat(Signals.awaitStopped(process.pid(), Duration.ofSeconds(30))).isFalse();
    }
}
