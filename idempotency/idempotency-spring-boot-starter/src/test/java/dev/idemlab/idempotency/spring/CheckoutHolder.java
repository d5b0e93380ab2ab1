package dev.idemlab.idempotency.spring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link CheckoutApplication#main} in a child JVM, started from this JVM's class path: the holder of a
 * crash-point test, killed with SIGKILL by its pid the moment it says it stands at its point (it waits
 * there, so it is killed there). {@link #close()} kills it if it still runs and waits until it is gone,
 * whatever the test did; it never touches another process. Thread-safe.
 */
final class CheckoutHolder implements AutoCloseable {

    /** How long a holder may take to reach its point: six JVMs start at once, on a machine that may be busy. */
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    private final Process process;
    private final String point;
    private final List<String> output = new ArrayList<>();
    private volatile boolean killedAtPoint;

    private CheckoutHolder(Process process, String point) {
        this.process = process;
        this.point = point;
        Thread reader = new Thread(this::read, "checkout-holder-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a holder that places {@code orderRef} under {@code key}, to be killed at {@code point}. */
    static CheckoutHolder start(Checkout.Charging charging, String key, String orderRef, String point,
                                List<String> applicationArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // It lives for seconds: a small heap, one collector thread and the quick compiler start it sooner.
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), CheckoutApplication.class.getName(),
                charging.name(), key, orderRef, point));
        command.addAll(applicationArgs);
        return new CheckoutHolder(new ProcessBuilder(command).redirectErrorStream(true).start(), point);
    }

    /**
     * Waits until the holder is gone, and returns its exit code (137 for SIGKILL).
     *
     * @throws IllegalStateException if it exited before it reached its point (it finished, or failed), or
     *     never did, with its output
     */
    int awaitKilledAtItsPoint() throws InterruptedException {
        if (!process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the holder (pid " + process.pid() + ") never reached " + point
                    + "; its output: " + outputTail());
        }
        if (!killedAtPoint) {
            throw new IllegalStateException("the holder (pid " + process.pid() + ") exited with "
                    + process.exitValue() + " before it reached " + point + "; its output: " + outputTail());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        if (!process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the holder (pid " + process.pid() + ") outlived its SIGKILL");
        }
    }

    private void read() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.equals(CheckoutApplication.AT + point)) {
                    killedAtPoint = true;
                    process.destroyForcibly(); // SIGKILL, by its pid
                }
            }
        } catch (IOException ended) {
            // The process is gone; whoever waits for it finds out by its exit.
        }
    }

    private String outputTail() {
        synchronized (output) {
            return String.join(" | ", output.subList(Math.max(0, output.size() - 20), output.size()));
        }
    }
}
