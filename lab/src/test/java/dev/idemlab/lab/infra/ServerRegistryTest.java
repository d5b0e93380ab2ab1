package dev.idemlab.lab.infra;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reaper tells a lab that is gone from one that is running, by pid and start, and only reaps the
 * servers of the first. A CI run once lost its bundled Redis binary halfway: a child JVM saw the running
 * test JVM start at another second than the test JVM had recorded, took it for gone, and removed the
 * directories recorded with its servers.
 */
class ServerRegistryTest {

    @TempDir
    Path dir;

    private Process server;
    /** The boot an entry is recorded under: this one, unless a test says otherwise. */
    private String boot = ServerRegistry.bootId().orElse(null);

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.destroyForcibly();
        }
    }

    @Test
    void aRunningLabWhoseStartAnotherJvmSeesSecondsApartKeepsItsServersAndDirectories() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        Path kept = Files.createDirectory(dir.resolve("extracted-binary"));
        startServer();
        Instant seenElsewhere = Instant.parse(ServerRegistry.startOf(self)).plusSeconds(2);
        Path file = entry(self.pid(), seenElsewhere.toString(), null);

        assertThat(ServerRegistry.reap(file)).as("nothing stopped").isFalse();
        assertThat(kept).exists();
        assertThat(server.isAlive()).isTrue();
    }

    @Test
    void whereTheKernelGivesStartTicksTheyDecideWhateverTheInstant() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        String ticks = ServerRegistry.startTicks(self.pid()).orElse(null);
        assumeTrue(ticks != null, "no /proc here");
        Path kept = Files.createDirectory(dir.resolve("extracted-binary"));
        startServer();

        Path hourOff = entry(self.pid(), Instant.parse(ServerRegistry.startOf(self)).plus(Duration.ofHours(1)).toString(),
                ticks);
        assertThat(ServerRegistry.reap(hourOff)).isFalse();
        assertThat(kept).exists();
        assertThat(server.isAlive()).isTrue();

        // The same pid with other ticks is another process: the lab that recorded the server is gone.
        Path otherTicks = entry(self.pid(), ServerRegistry.startOf(self), Long.toString(Long.parseLong(ticks) + 1));
        assertThat(ServerRegistry.reap(otherTicks)).as("the server was stopped").isTrue();
        assertThat(server.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(kept).doesNotExist();
        assertThat(otherTicks).doesNotExist();
    }

    @Test
    void aLabStartedMinutesFromTheRecordIsGoneAndItsServerIsStopped() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        Path removed = Files.createDirectory(dir.resolve("extracted-binary"));
        startServer();
        Path file = entry(self.pid(), Instant.parse(ServerRegistry.startOf(self)).minus(Duration.ofMinutes(3)).toString(),
                null);

        assertThat(ServerRegistry.reap(file)).isTrue();
        assertThat(server.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(removed).doesNotExist();
    }

    @Test
    void aRecordFromAnotherBootNamesNoRunningProcessAndSignalsNone() throws Exception {
        assumeTrue(ServerRegistry.bootId().isPresent() && ServerRegistry.startTicks(ProcessHandle.current().pid())
                .isPresent(), "no /proc here");
        ProcessHandle self = ProcessHandle.current();
        Path removed = Files.createDirectory(dir.resolve("extracted-binary"));
        startServer();
        boot = "another-boot";
        Path file = entry(self.pid(), ServerRegistry.startOf(self), ServerRegistry.startTicks(self.pid()).orElseThrow());

        assertThat(ServerRegistry.reap(file)).as("its lab is gone, and its pids are other processes now").isFalse();
        assertThat(server.isAlive()).isTrue();
        assertThat(removed).doesNotExist();
    }

    private void startServer() throws IOException {
        server = new ProcessBuilder("sleep", "120").start();
    }

    /** A registry entry for {@link #server}, started by the lab {@code labPid} as recorded. */
    private Path entry(long labPid, String labStart, String labTicks) throws IOException {
        Properties entry = new Properties();
        entry.setProperty("kind", "redis-server");
        entry.setProperty("lab.pid", Long.toString(labPid));
        entry.setProperty("lab.start", labStart);
        if (labTicks != null) {
            entry.setProperty("lab.ticks", labTicks);
        }
        entry.setProperty("server.pid", Long.toString(server.pid()));
        entry.setProperty("server.start", ServerRegistry.startOf(server.toHandle()));
        ServerRegistry.startTicks(server.pid()).ifPresent(ticks -> entry.setProperty("server.ticks", ticks));
        entry.setProperty("cleanup.0", dir.resolve("extracted-binary").toString());
        if (boot != null) {
            entry.setProperty("boot", boot);
        }
        Path file = Files.createTempFile(dir, labPid + "-", ".server");
        try (OutputStream out = Files.newOutputStream(file)) {
            entry.store(out, null);
        }
        return file;
    }
}
