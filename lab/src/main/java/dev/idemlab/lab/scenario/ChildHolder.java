package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.ServerRegistry;
import dev.idemlab.lab.infra.Signals;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link HolderMain} running in a child JVM of this one, started from this JVM's own class path,
 * and the signals the failure lab sends it by its pid: SIGSTOP, SIGCONT, SIGKILL. Its timeline lines
 * are recorded onto the parent's timeline as they arrive, its coordinator drawn as a participant of
 * its own. {@link #close()} kills it if it still runs and waits until it is gone; it never touches
 * any process but the one it started. So does a shutdown hook if this JVM exits first (Ctrl-C while
 * the child is stopped, say), and the {@link ServerRegistry} records its pid, so that the next lab
 * run kills it if this JVM was killed outright. Thread-safe.
 */
public final class ChildHolder implements AutoCloseable {

    static final String COORDINATOR = "Coordinator (child JVM)";
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Process process;
    private final Timeline timeline;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> output = new ArrayList<>();

    private final ServerRegistry.Registration registration;
    private final Thread onExit;

    private ChildHolder(Process process, Timeline timeline) {
        this.process = process;
        this.timeline = timeline;
        this.registration = ServerRegistry.record(ServerRegistry.HOLDER, process.pid(), List.of());
        this.onExit = new Thread(this::reap, "holder-reaper-" + process.pid());
        Runtime.getRuntime().addShutdownHook(onExit);
        Thread reader = new Thread(this::read, "holder-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the holder: {@code args} as {@link HolderMain} takes them, the store in its environment.
     *
     * @throws IllegalStateException if the JVM cannot be started
     */
    static ChildHolder start(StoreEndpoint store, Timeline timeline, String... args) {
        return start(store, timeline, HolderMain.class, args);
    }

    /**
     * Starts {@code main}, a holder of another kind (its own arguments, the same lines on standard output).
     *
     * @throws IllegalStateException if the JVM cannot be started
     */
    static ChildHolder start(StoreEndpoint store, Timeline timeline, Class<?> main, String... args) {
        // A holder lives for seconds and waits on its store: a small heap and the quick compiler start it sooner.
        return start(store, timeline, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), main, args);
    }

    private static ChildHolder start(StoreEndpoint store, Timeline timeline, List<String> jvmOptions, Class<?> main,
                                     String... args) {
        ServerRegistry.reapStale(); // holders a killed lab left, stopped or not
        List<String> command = new ArrayList<>(List.of(javaBinary()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(store.environment());
        try {
            ChildHolder holder = new ChildHolder(builder.start(), timeline);
            timeline.record(COORDINATOR, COORDINATOR, "child JVM started, pid " + holder.pid(), false);
            return holder;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the holder's JVM: " + e.getMessage(), e);
        }
    }

    /**
     * Starts a holder whose timeline goes nowhere (the nemesis keeps a history of its own instead).
     *
     * @throws IllegalStateException if the JVM cannot be started
     */
    public static ChildHolder start(StoreEndpoint store, String... args) {
        return start(store, new Timeline(), args);
    }

    /**
     * Starts {@code main}, a holder of another kind, whose timeline goes nowhere (the nemesis keeps a
     * history of its own instead).
     *
     * @throws IllegalStateException if the JVM cannot be started
     */
    public static ChildHolder start(StoreEndpoint store, Class<?> main, String... args) {
        return start(store, new Timeline(), main, args);
    }

    /**
     * Starts {@code main} with {@code jvmOptions} (heap, flight recorder) in place of a holder's small heap and
     * quick compiler: for a child that is measured, such as a server whose CPU time is read; its timeline goes
     * nowhere.
     *
     * @throws IllegalStateException if the JVM cannot be started
     */
    public static ChildHolder start(StoreEndpoint store, List<String> jvmOptions, Class<?> main, String... args) {
        return start(store, new Timeline(), List.copyOf(jvmOptions), main, args);
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Waits for the holder's next line starting with {@code prefix} and returns the rest of it.
     *
     * @throws IllegalStateException if the holder exits or stays silent too long, with its output
     */
    public String await(String prefix) throws InterruptedException {
        return awaitAny(prefix).substring(prefix.length());
    }

    /**
     * Waits for the holder's next line starting with one of {@code prefixes} and returns it whole: for a
     * holder whose next line may be one of several (a charge it may or may not make before its answer).
     *
     * @throws IllegalStateException if the holder exits or stays silent too long, with its output
     */
    public String awaitAny(String... prefixes) throws InterruptedException {
        String expected = String.join("' or '", java.util.Arrays.stream(prefixes).map(String::strip).toList());
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            String line = lines.poll(Math.max(1, Math.min(deadline - System.nanoTime(),
                    TimeUnit.MILLISECONDS.toNanos(200))), TimeUnit.NANOSECONDS);
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                process.waitFor();
                line = lines.poll(1, TimeUnit.SECONDS); // the reader may still be draining its last lines
                if (line == null) {
                    throw new IllegalStateException("the holder (pid " + pid() + ") exited with " + process.exitValue()
                            + " before it said '" + expected + "'; its output: " + outputTail());
                }
            }
            if (line == null && System.nanoTime() - deadline < 0) {
                continue;
            }
            if (line == null) {
                throw new IllegalStateException("the holder (pid " + pid() + ") never said '" + expected
                        + "'; its output: " + outputTail());
            }
            for (String prefix : prefixes) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
    }

    /** Sends {@code SIGSTOP} or {@code SIGCONT} to the holder, by its pid. */
    public void signal(String signal) {
        Signals.send(signal, pid());
        timeline.record(COORDINATOR, COORDINATOR, "SIG" + signal + " to the child JVM (pid " + pid() + ")", false);
    }

    /** Lets a gated holder go on (it reads a line from standard input). */
    public void proceed() {
        try {
            OutputStream in = process.getOutputStream();
            in.write('\n');
            in.flush();
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach the holder's standard input: " + e.getMessage(), e);
        }
    }

    /** Writes {@code line} to the child's standard input, for a child that reads commands there. */
    public void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach the child's standard input: " + e.getMessage(), e);
        }
    }

    /** SIGKILL, then waits until the process is gone; returns its exit code (137 for SIGKILL). */
    public int kill() throws InterruptedException {
        process.destroyForcibly();
        int exit = process.waitFor();
        registration.close();
        timeline.record(COORDINATOR, COORDINATOR, "SIGKILL: the child JVM (pid " + pid() + ") is gone, exit " + exit,
                false);
        return exit;
    }

    /** Waits for the holder to exit by itself. */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the holder (pid " + pid() + ") did not exit; its output: " + outputTail());
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the holder if it still runs, stopped or not, and waits until it is gone,
     * also in a thread that was interrupted: the interrupt is kept, and the child is reaped first.
     */
    @Override
    public void close() {
        reap();
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException exiting) {
            // this JVM is exiting: the hook runs, or ran, the same reap
        }
    }

    /**
     * Kills the child (SIGKILL ends a stopped process too; continuing it first would let it run on and
     * charge), waits until it is gone, and forgets its record.
     */
    private void reap() {
        boolean interrupted = Thread.interrupted();
        try {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            if (process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                registration.close();
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void read() {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.startsWith(HolderMain.EVENT)) {
                    String[] parts = line.split("\t", 5);
                    if (parts.length == 5) {
                        timeline.record(rename(parts[1]), rename(parts[2]), parts[4], Boolean.parseBoolean(parts[3]));
                    }
                } else {
                    lines.add(line);
                }
            }
        } catch (IOException ended) {
            // The process is gone; whoever waits for a line finds out by its timeout.
        }
    }

    private static String rename(String participant) {
        return participant.equals(Timeline.COORDINATOR) ? COORDINATOR : participant;
    }

    private String outputTail() {
        synchronized (output) {
            List<String> tail = output.subList(Math.max(0, output.size() - 15), output.size());
            return String.join(" | ", tail);
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
