package dev.idemlab.idempotency.spring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link CheckoutApplication#main} in a child JVM, started from this JVM's class path: the holder of a
 * crash-point test, killed with SIGKILL by its pid where it stops. {@link #close()} kills it if it still
 * runs and waits until it is gone, whatever the test did; it never touches another process.
 */
final class CheckoutHolder implements AutoCloseable {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> output = new ArrayList<>();

    private CheckoutHolder(Process process) {
        this.process = process;
        Thread reader = new Thread(this::read, "checkout-holder-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a holder that places {@code orderRef} under {@code key} and stops at {@code stopAt}. */
    static CheckoutHolder start(Checkout.Charging charging, String key, String orderRef, String stopAt,
                                List<String> applicationArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // It lives for seconds: a small heap, one collector thread and the quick compiler start it sooner.
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), CheckoutApplication.class.getName(),
                charging.name(), key, orderRef, stopAt));
        command.addAll(applicationArgs);
        return new CheckoutHolder(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /**
     * Waits for the holder to say {@code at POINT}.
     *
     * @throws IllegalStateException if it says something else first (it finished), exits or stays silent,
     *     with its output
     */
    void awaitAt(String point) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line == null) {
                if (!process.isAlive() && lines.isEmpty()) {
                    throw new IllegalStateException("the holder (pid " + process.pid() + ") exited with "
                            + process.waitFor() + " before it reached " + point + "; its output: " + outputTail());
                }
            } else if (line.equals(CheckoutApplication.AT + point)) {
                return;
            } else if (line.startsWith(CheckoutApplication.GOT)) {
                throw new IllegalStateException("the holder finished instead of stopping at " + point + ": " + line);
            }
        }
        throw new IllegalStateException("the holder (pid " + process.pid() + ") never reached " + point
                + "; its output: " + outputTail());
    }

    /** SIGKILL by its pid, then waits until it is gone; returns its exit code (137). */
    int kill() throws InterruptedException {
        process.destroyForcibly();
        return process.waitFor();
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
                lines.add(line);
            }
        } catch (IOException ended) {
            // The process is gone; whoever waits for a line finds out by its exit.
        }
    }

    private String outputTail() {
        synchronized (output) {
            return String.join(" | ", output.subList(Math.max(0, output.size() - 20), output.size()));
        }
    }
}
