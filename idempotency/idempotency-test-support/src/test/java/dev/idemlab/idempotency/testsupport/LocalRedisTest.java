package dev.idemlab.idempotency.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

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
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        assertThat(dir).doesNotExist();
        assertNotServedBy(redis.port(), pid);
        redis.close(); // twice is harmless
    }

    @Test
    void theServerSaysItsVersionAndItIsTheProcessThatAnswers() throws Exception {
        try (LocalRedis redis = LocalRedis.start()) {
            assertThat(redis.version()).matches("\\d+\\.\\d+.*");
            assertThat(infoField(redis.port(), "process_id")).isEqualTo(Long.toString(redis.pid()));
            assertThat(redis.toString()).contains(redis.version()).contains(Long.toString(redis.pid()));
        }
    }

    /**
     * Another process takes the port between the probe and our server's bind: our server exits
     * ("Address already in use") while the other one answers PING. Before, that PONG made the start
     * return, and the tests wrote to the other server; now the start asks who answered, and goes on
     * to another port.
     */
    @Test
    void aPortTakenByAnotherServerIsNeverHandedOutAsOurs() throws Exception {
        try (LocalRedis other = LocalRedis.start()) {
            Deque<Integer> ports = new ArrayDeque<>(List.of(other.port()));
            List<Long> told = new ArrayList<>();
            try (LocalRedis ours = LocalRedis.start(LocalRedis.bundledExecutable(), List.of(),
                    (pid, directory) -> told.add(pid), () -> ports.isEmpty() ? freePort() : ports.pop())) {
                assertThat(ours.port()).isNotEqualTo(other.port());
                assertThat(infoField(ours.port(), "process_id")).isEqualTo(Long.toString(ours.pid()));
                assertThat(told).hasSize(2).endsWith(ours.pid());
                assertThat(ProcessHandle.of(told.get(0)).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
            }
            assertThat(other.isAlive()).isTrue();
            assertThat(infoField(other.port(), "process_id")).isEqualTo(Long.toString(other.pid()));
        }
    }

    @Test
    void aStartWhosePortsAreAllTakenFailsAndLeavesNoProcessOfItsOwn() throws Exception {
        try (LocalRedis other = LocalRedis.start()) {
            List<Long> told = new ArrayList<>();
            assertThatThrownBy(() -> LocalRedis.start(LocalRedis.bundledExecutable(), List.of(),
                    (pid, directory) -> told.add(pid), other::port))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(other.address());
            assertThat(told).hasSize(3).doesNotContain(other.pid());
            for (long pid : told) {
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
            }
            assertThat(infoField(other.port(), "process_id")).isEqualTo(Long.toString(other.pid()));
        }
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

    /**
     * Nothing on {@code port} is the server of {@code pid} any more: nothing answers, or what answers
     * (another process that took the freed port meanwhile) has another pid.
     */
    private static void assertNotServedBy(int port, long pid) {
        String answering;
        try {
            answering = infoField(port, "process_id");
        } catch (IOException nothingAnswers) {
            return;
        }
        assertThat(answering).isNotEqualTo(Long.toString(pid));
    }

    /** A field of {@code INFO server} on {@code port}. */
    private static String infoField(int port, String field) throws IOException {
        String info = command(port, "INFO server");
        return info.lines().filter(line -> line.startsWith(field + ":")).map(line -> line.substring(field.length() + 1))
                .findFirst().orElseThrow(() -> new IOException("no " + field + " in " + info));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LocalRedis.HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
