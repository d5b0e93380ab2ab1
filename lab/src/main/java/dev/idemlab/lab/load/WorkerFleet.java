package dev.idemlab.lab.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;

/**
 * The worker processes of one HTTP load run, seen from the parent: started together, released
 * together by {@code go}, each duplicate one hands off passed on to another worker (round robin over
 * the others; to itself when it is alone), and ended together once every worker's clients are done.
 * Their reports come back as files in a temporary folder of the parent's, removed on close.
 *
 * <p>Each worker runs {@code clients} client threads with a seed of its own drawn from the run's (so fresh
 * keys collide across workers no more than by chance) and, with a request count, its share of it. {@link #close()} stops every worker that
 * still runs, by its own process handle, and waits for each; a shutdown hook does the same if this
 * JVM is stopped first. Used by one thread, apart from the progress reads.
 */
final class WorkerFleet implements LoadDriver, AutoCloseable {

    /** How long cold JVMs get to start and warm up. */
    private static final Duration READY_PATIENCE = Duration.ofMinutes(2);

    private final LoadSettings settings;
    private final Duration waitTimeout;
    private final Path folder;
    private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
    private final AtomicIntegerArray nextTarget;
    private final Thread stopOnExit = new Thread(this::stopAll, "load-workers-stop");
    private final List<WorkerReport> reports = new ArrayList<>();

    private WorkerFleet(LoadSettings settings, int count, Duration waitTimeout, Path folder) {
        this.settings = settings;
        this.waitTimeout = waitTimeout;
        this.folder = folder;
        this.nextTarget = new AtomicIntegerArray(count);
    }

    /**
     * Starts {@code count} workers against {@code service}, warming up against {@code warmUpService}.
     *
     * @param settings the whole run's load: clients per worker, the request count shared out
     * @throws IOException if a JVM or the temporary folder cannot be had
     */
    static WorkerFleet start(LoadSettings settings, int count, URI service, URI warmUpService, Duration waitTimeout)
            throws IOException {
        WorkerFleet fleet = new WorkerFleet(settings, count, waitTimeout, Files.createTempDirectory("lab-load-workers"));
        Runtime.getRuntime().addShutdownHook(fleet.stopOnExit);
        try {
            for (int worker = 1; worker <= count; worker++) {
                int from = worker;
                fleet.workers.add(WorkerProcess.start(worker, LoadWorkerMain.arguments(service, warmUpService, worker,
                                fleet.share(worker), waitTimeout, fleet.report(worker)),
                        fleet.folder.resolve("worker-" + worker + ".log"), line -> fleet.handOff(from, line)));
            }
        } catch (IOException | RuntimeException e) {
            fleet.close();
            throw e;
        }
        return fleet;
    }

    /** Waits until every worker has warmed up and is ready. @throws WorkerFailure naming a worker that is not */
    void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + READY_PATIENCE.toNanos();
        for (WorkerProcess worker : workers) {
            worker.awaitReady(deadline);
        }
    }

    /**
     * Releases every worker, waits until all their clients are done, ends their input, waits for each
     * to exit 0 and reads its report.
     *
     * @throws WorkerFailure naming the first worker that failed
     */
    @Override
    public void run() throws InterruptedException {
        // A worker whose pipe broke is gone: the waits below see it exit and name it with its log, which
        // says why, instead of the pipe's "Broken pipe".
        for (WorkerProcess worker : workers) {
            unlessGone(() -> worker.send(LoadWorkerMain.GO));
        }
        long limit = settings.stopsByCount() ? Long.MAX_VALUE / 2
                : settings.duration().plus(LoadSession.DRAIN).plus(waitTimeout).toNanos();
        long deadline = System.nanoTime() + limit;
        for (WorkerProcess worker : workers) {
            worker.awaitClientsDone(deadline);
        }
        for (WorkerProcess worker : workers) {
            unlessGone(worker::endInput);
        }
        for (int i = 0; i < workers.size(); i++) {
            workers.get(i).awaitExit(deadline + LoadSession.DRAIN.toNanos());
            try {
                reports.add(WorkerReport.read(report(i + 1)));
            } catch (IOException e) {
                throw new UncheckedIOException("worker " + (i + 1) + " exited 0 but its report could not be read: "
                        + e.getMessage(), e);
            }
        }
    }

    private interface PipeWrite {
        void run() throws IOException;
    }

    private static void unlessGone(PipeWrite write) {
        try {
            write.run();
        } catch (IOException gone) {
            // the worker's exit is seen, and reported, by the waits that follow
        }
    }

    /** Every worker's report, in worker order; empty until {@link #run()} returned. */
    List<WorkerReport> reports() {
        return List.copyOf(reports);
    }

    @Override
    public long completed() {
        return workers.stream().mapToLong(WorkerProcess::completed).sum();
    }

    @Override
    public long retriesSent() {
        return reports.stream().mapToLong(WorkerReport::retriesSent).sum();
    }

    /** Stops every worker still running and waits for each, then removes the temporary folder. */
    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running, or has run: the workers are being stopped.
        }
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException leftBehind) {
            // A temporary folder the system cleans up.
        }
    }

    private void stopAll() {
        workers.forEach(WorkerProcess::close);
    }

    /** Worker {@code worker}'s load: the same clients, its own seed and, by count, its share of the requests. */
    private LoadSettings share(int worker) {
        long requests = 0;
        if (settings.stopsByCount()) {
            int count = nextTarget.length();
            requests = settings.requests() / count + (worker <= settings.requests() % count ? 1 : 0);
        }
        // Not seed + worker: a session's client streams step by SplittableRandom's own gamma, so seeds one apart
        // would draw the same keys one draw apart, and fresh keys would collide across workers by accident.
        long seed = new SplittableRandom(settings.seed() + worker).nextLong();
        return new LoadSettings(settings.clients(), settings.retryRate(), settings.providerLatency(), settings.keys(),
                settings.duration(), requests, seed);
    }

    private Path report(int worker) {
        return folder.resolve("worker-" + worker + ".json");
    }

    /** Passes a duplicate from worker {@code from} on to the next of the others, round robin. */
    private void handOff(int from, String line) {
        int count = workers.size();
        int step = count == 1 ? 0 : 1 + Math.floorMod(nextTarget.getAndIncrement(from - 1), count - 1);
        try {
            workers.get((from - 1 + step) % count).send(line);
        } catch (IOException gone) {
            // That worker is gone: the run fails when its exit is seen, naming it.
        }
    }
}
