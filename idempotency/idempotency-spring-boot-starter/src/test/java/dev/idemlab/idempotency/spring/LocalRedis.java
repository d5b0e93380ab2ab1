package dev.idemlab.idempotency.spring;

import redis.embedded.core.ExecutableProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A private {@code redis-server} for a test class: embedded-redis's bundled binary on 127.0.0.1 at
 * an ephemeral port, without persistence. Close it in {@code @AfterAll}; closing twice is harmless.
 */
final class LocalRedis implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private final Process process;
    private final int port;

    private LocalRedis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static LocalRedis start() throws IOException, InterruptedException {
        Path binary = ExecutableProvider.newJarResourceProvider().get().toPath();
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            port = free.getLocalPort();
        }
        Path dir = Files.createTempDirectory("starter-redis-");
        Process process = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port), "--bind", HOST,
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        LocalRedis redis = new LocalRedis(process, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!redis.answersPing()) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                redis.close();
                throw new IllegalStateException("redis-server did not answer PING on " + HOST + ":" + port
                        + "; its log: " + Files.readString(dir.resolve("redis.log")));
            }
            Thread.sleep(20);
        }
        return redis;
    }

    String uri() {
        return "redis://" + HOST + ":" + port;
    }

    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException notYet) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
