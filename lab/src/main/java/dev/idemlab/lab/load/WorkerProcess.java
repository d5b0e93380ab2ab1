package dev.idemlab.lab.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One {@link LoadWorkerMain} in a JVM of its own, started with this JVM's java binary and class path:
 * its standard output read line by line (readiness, progress, the duplicates it hands off), its
 * standard input written by the parent, its standard error kept in a file for the message when it
 * fails. {@link #close()} destroys it if it still runs and waits until it is gone; it never touches
 * a process but its own. Thread-safe.
 */
final class WorkerProcess implements AutoCloseable {

    private static final long STOP_PATIENCE_SECONDS = 10;

    private final int worker;
    private final Process process;
    private final Path log;
    private final Writer input;
    private final Consumer<String> duplicates;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch clientsDone = new CountDownLatch(1);
    private volatile long completed;

    private WorkerProcess(int worker, Process process, Path log, Consumer<String> duplicates) {
        this.worker = worker;
        this.process = process;
        this.log = log;
        this.duplicates = duplicates;
        this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::read, "load-worker-" + worker + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts worker {@code worker}.
     *
     * @param arguments as {@link LoadWorkerMain#arguments} builds them
     * @param log where its standard error goes
     * @param duplicates receives each {@code retry} line it writes, for another worker
     * @throws IOException if the JVM cannot be started
     */
    static WorkerProcess start(int worker, List<String> arguments, Path log, Consumer<String> duplicates)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), LoadWorkerMain.class.getName()));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        return new WorkerProcess(worker, process, log, duplicates);
    }

    /** Writes one line to its standard input. */
    synchronized void send(String line) throws IOException {
        input.write(line);
        input.write('\n');
        input.flush();
    }

    /** Closes its standard input: no more duplicates will come. */
    synchronized void endInput() throws IOException {
        input.close();
    }

    /** Requests it has had answered so far, as it last said. */
    long completed() {
        return completed;
    }

    /** @throws WorkerFailure if it exits before it is ready */
    void awaitReady(long deadlineNanos) throws InterruptedException {
        await(ready, "it was ready", deadlineNanos);
    }

    /** @throws WorkerFailure if it exits before its clients are done */
    void awaitClientsDone(long deadlineNanos) throws InterruptedException {
        await(clientsDone, "its clients were done", deadlineNanos);
    }

    /** @throws WorkerFailure if it does not exit 0 in time */
    void awaitExit(long deadlineNanos) throws InterruptedException {
        if (!process.waitFor(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            throw failure("did not finish in time");
        }
        if (process.exitValue() != 0) {
            throw failure("exited with " + process.exitValue());
        }
    }

    /** Destroys it if it still runs, forcibly if it does not stop, and waits until it is gone. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException alreadyClosed) {
            // Nothing left to say to it.
        }
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(STOP_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            process.waitFor();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void await(CountDownLatch latch, String what, long deadlineNanos) throws InterruptedException {
        while (!latch.await(100, TimeUnit.MILLISECONDS)) {
            if (!process.isAlive()) {
                throw failure("exited with " + process.exitValue() + " before " + what);
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw failure("timed out before " + what);
            }
        }
    }

    private WorkerFailure failure(String what) {
        return new WorkerFailure(worker, process.pid(), what, lastLogLine());
    }

    private String lastLogLine() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                // The last line that is not a stack frame: the exception, or what it was caused by.
                if (!lines.get(i).isBlank() && !Character.isWhitespace(lines.get(i).charAt(0))) {
                    return lines.get(i).strip();
                }
            }
        } catch (IOException unreadable) {
            // The message goes without it.
        }
        return "";
    }

    private void read() {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.startsWith(LoadWorkerMain.RETRY)) {
                    duplicates.accept(line);
                } else if (line.startsWith(LoadWorkerMain.COMPLETED)) {
                    completed = Long.parseLong(line.substring(LoadWorkerMain.COMPLETED.length()));
                } else if (line.equals(LoadWorkerMain.READY)) {
                    ready.countDown();
                } else if (line.equals(LoadWorkerMain.CLIENTS_DONE)) {
                    clientsDone.countDown();
                }
            }
        } catch (IOException ended) {
            // The process is gone; whoever waits on it finds out from its exit.
        }
    }
}
