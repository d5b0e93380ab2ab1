package dev.idemlab.idempotency.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Real redis-server processes: what start promises (ready, private) and what close promises (gone). */
class LocalRedisTest {

    @Test
    void aStartedServerAnswersPingOnLoopbackAndIsGoneWithItsDirectoryOnceClosed() throws Exception {
        LocalRedis redis = LocalRedis.start();
        long pid = redis.pid();
        Path dir = redis.directory();
        try {
            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
            assertThat(command(redis.port(), "PING")).isEqualTo("+PONG");
            assertThat(ProcessHandle.of(pid)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        } finally {
            redis.close();
        }
        assertThat(redis.isAlive()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
        assertThat(dir).doesNotExist();
        assertThatThrownBy(() -> command(redis.port(), "PING")).isInstanceOf(IOException.class);
        redis.close(); // twice is harmless
    }

    @Test
    void aCallerIsToldOfTheProcessBeforeItAnswersSoItCanRecordIt() throws Exception {
        List<String> told = new ArrayList<>();
        try (LocalRedis redis = LocalRedis.start(LocalRedis.bundledExecutable(), List.of(), (pid, directory) ->
                // Told while the process runs and has not been asked anything yet.
                told.add(pid + " " + directory + " " + ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)))) {
            assertThat(told).containsExactly(redis.pid() + " " + redis.directory() + " true");
        }
    }

    @Test
    void eachServerHasItsOwnPortAndClosingOneLeavesTheOtherRunning() throws Exception {
        try (LocalRedis first = LocalRedis.start()) {
            try (LocalRedis second = LocalRedis.start()) {
                assertThat(second.port()).isNotEqualTo(first.port());
                command(second.port(), "SET k second");
            }
            assertThat(first.isAlive()).isTrue();
            assertThat(command(first.port(), "EXISTS k")).isEqualTo(":0");
        }
    }

    @Test
    void laterArgumentsOverrideTheDefaultsSoASnapshotCanGoToTheCallersDirectory(@TempDir Path data) throws Exception {
        try (LocalRedis redis = LocalRedis.start(LocalRedis.bundledExecutable(),
                List.of("--dir", data.toString(), "--dbfilename", "kept.rdb"))) {
            command(redis.port(), "SET k v");
            assertThat(command(redis.port(), "SAVE")).isEqualTo("+OK");
        }
        assertThat(data.resolve("kept.rdb")).isRegularFile();
    }

    @Test
    void aSentinelAnswersWithTheMasterItWasGiven() throws Exception {
        try (LocalRedis master = LocalRedis.start();
             LocalRedis sentinel = LocalRedis.startSentinel("payments", master.host(), master.port())) {
            assertThat(command(sentinel.port(), "SENTINEL get-master-addr-by-name payments"))
                    .isEqualTo("*2\r\n$9\r\n127.0.0.1\r\n$" + Integer.toString(master.port()).length() + "\r\n"
                            + master.port());
        }
    }

    @Test
    void aBinaryThatExitsAtStartFailsTheStartWithItsOwnWords(@TempDir Path dir) throws Exception {
        Path broken = dir.resolve("redis-server");
        Files.writeString(broken, "#!/bin/sh\necho 'no such option, says the server'\nexit 3\n");
        Files.setPosixFilePermissions(broken, PosixFilePermissions.fromString("rwx------"));
        assertThatThrownBy(() -> LocalRedis.start(broken, List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with 3")
                .hasMessageContaining("no such option, says the server");
    }

    /** Sends one inline command and returns its reply, without the last CRLF. */
    private static String command(int port, String command) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LocalRedis.HOST, port), 1000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            // QUIT after the command: the server answers both, then closes, so the whole reply is what was read
            out.write((command + "\r\nQUIT\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(reply).endsWith("\r\n+OK\r\n");
            return reply.substring(0, reply.length() - "\r\n+OK\r\n".length());
        }
    }
}
