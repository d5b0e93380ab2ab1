package dev.idemlab.lab.http;

import dev.idemlab.lab.infra.ServerRegistry;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Spring Boot sample ({@code examples/spring-boot-payments}) running in a child JVM of this one, on
 * 127.0.0.1 at an ephemeral port: started from its runnable jar with the arguments given, secrets (a store
 * URL, a password) in its environment, never on its command line. It writes its port to a file once it
 * is ready; its output goes to a log whose tail a failure quotes.
 *
 * <p>It never outlives the lab: {@link #close()} stops it (SIGTERM, then SIGKILL after a grace period)
 * and waits until it is gone; a shutdown hook does the same if this JVM exits first; and the
 * {@link ServerRegistry} records its pid, so that the next lab run stops it if this JVM was killed
 * outright. Thread-safe.
 */
public final class SpringSample implements AutoCloseable {

    /** The kind the registry records it as. */
    public static final String KIND = "Spring sample JVM";
    private static final Duration START_PATIENCE = Duration.ofSeconds(180);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    /**
     * The JVM options a sample gets unless told others: a small heap, and the first compiler only, which
     * starts a short-lived sample sooner; never for a sample whose speed is measured.
     */
    public static final List<String> QUICK_START = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");

    private final Process process;
    private final Path dir;
    private final ServerRegistry.Registration registration;
    private final Thread onExit;
    private volatile URI uri;

    private SpringSample(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
        this.registration = ServerRegistry.record(KIND, process.pid(), List.of(dir));
        this.onExit = new Thread(this::stop, "spring-sample-reaper-" + process.pid());
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /**
     * Starts the sample and waits until it serves.
     *
     * @param jar the sample's runnable jar
     * @param arguments Spring Boot arguments ({@code --idempotency.store=redis}, ...)
     * @param environment variables for its environment (the store's URL and credentials)
     * @throws IOException when the JVM cannot be started
     * @throws IllegalStateException when it exits or stays silent before it serves, with its log's tail
     */
    public static SpringSample start(Path jar, List<String> arguments, Map<String, String> environment)
            throws IOException, InterruptedException {
        return start(jar, QUICK_START, arguments, environment);
    }

    /**
     * Starts the sample with the JVM options given, and waits until it serves.
     *
     * @param jvmOptions the sample JVM's options ({@code -Xmx512m}, ...), in place of {@link #QUICK_START}
     * @see #start(Path, List, Map)
     */
    public static SpringSample start(Path jar, List<String> jvmOptions, List<String> arguments,
                                     Map<String, String> environment) throws IOException, InterruptedException {
        ServerRegistry.reapStale(); // samples a killed lab left running
        Path dir = Files.createTempDirectory("idemlab-sample-");
        Path portFile = dir.resolve("port");
        List<String> command = new ArrayList<>(List.of(javaBinary()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString(),
                "--server.address=127.0.0.1", "--server.port=0", "--payments.port-file=" + portFile));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("sample.log").toFile());
        builder.environment().putAll(environment);
        SpringSample sample = new SpringSample(builder.start(), dir);
        try {
            sample.awaitPort(portFile);
            return sample;
        } catch (RuntimeException | InterruptedException e) {
            sample.close();
            throw e;
        }
    }

    private void awaitPort(Path portFile) throws InterruptedException {
        long deadline = System.nanoTime() + START_PATIENCE.toNanos();
        while (!Files.isRegularFile(portFile)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the Spring sample (pid " + process.pid() + ") exited with "
                        + process.exitValue() + " before it served; its log ends: " + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the Spring sample (pid " + process.pid() + ") did not serve within "
                        + START_PATIENCE.toSeconds() + " s; its log ends: " + logTail());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        try {
            uri = URI.create("http://127.0.0.1:" + Integer.parseInt(Files.readString(portFile).strip()));
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("the Spring sample's port file " + portFile + " is unreadable: " + e, e);
        }
    }

    /** {@code http://127.0.0.1:PORT}. */
    public URI uri() {
        return uri;
    }

    public long pid() {
        return process.pid();
    }

    /** The last lines the sample logged, for a message. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("sample.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops the sample if it still runs, waits until it is gone, and removes its files. Idempotent. */
    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException exiting) {
            // this JVM is exiting: the hook runs, or ran, the same stop
        }
    }

    /** SIGTERM, so that it closes its store clients; SIGKILL past the grace period. Keeps an interrupt. */
    private void stop() {
        boolean interrupted = Thread.interrupted();
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                }
            }
            if (process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                registration.close();
                ServerRegistry.deleteTree(dir);
            }
        } catch (InterruptedException e) {
            interrupted = true;
            process.destroyForcibly();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
