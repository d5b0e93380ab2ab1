package dev.idemlab.lab.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One worker process of {@code lab load --transport http --workers N}, started by {@link WorkerFleet}
 * from the lab's own class path. It warms up against a throwaway demo server, says {@code ready}, and
 * on {@code go} runs closed-loop clients against the measured demo server over HTTP. Each concurrent
 * duplicate is handed to another worker through the parent, and the duplicates other workers hand
 * to this one arrive on standard input and are sent from here: so the same key reaches the service
 * from two processes while its first request is in flight.
 *
 * <p>Standard output, one line each: {@code ready}; {@code retry KEY DELAY_NANOS} (a duplicate for
 * another worker); {@code completed N} every second; {@code clients-done}. Standard input:
 * {@code go}; {@code retry KEY DELAY_NANOS}; end of input once every worker's clients are done, after
 * which it sends what it was handed, writes its {@link WorkerReport} and exits 0. End of input before
 * {@code go} (the parent is gone) exits 3. Not an entry point for people: the lab starts it.
 */
public final class LoadWorkerMain {

    static final String READY = "ready";
    static final String GO = "go";
    static final String RETRY = "retry ";
    static final String COMPLETED = "completed ";
    static final String CLIENTS_DONE = "clients-done";

    private final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private final CountDownLatch go = new CountDownLatch(1);
    private final CountDownLatch endOfInput = new CountDownLatch(1);

    private LoadWorkerMain() { }

    /** The arguments {@link #main} takes, in its order. */
    static List<String> arguments(URI service, URI warmUpService, int worker, LoadSettings settings,
                                  Duration waitTimeout, Path report) {
        return List.of(service.toString(), warmUpService.toString(), Integer.toString(worker),
                Integer.toString(settings.clients()), Double.toString(settings.retryRate()),
                Long.toString(settings.providerLatency().toNanos()), Integer.toString(settings.keys()),
                settings.duration() == null ? "0" : Long.toString(settings.duration().toNanos()),
                Long.toString(settings.requests()), Long.toString(settings.seed()),
                Long.toString(waitTimeout.toNanos()), report.toString());
    }

    /** Arguments: as {@link #arguments} writes them. */
    public static void main(String[] args) throws Exception {
        System.exit(new LoadWorkerMain().work(args));
    }

    private int work(String[] args) throws InterruptedException, IOException {
        URI service = URI.create(args[0]);
        URI warmUpService = URI.create(args[1]);
        int worker = Integer.parseInt(args[2]);
        long durationNanos = Long.parseLong(args[7]);
        LoadSettings settings = new LoadSettings(Integer.parseInt(args[3]), Double.parseDouble(args[4]),
                Duration.ofNanos(Long.parseLong(args[5])), Integer.parseInt(args[6]),
                durationNanos == 0 ? null : Duration.ofNanos(durationNanos), Long.parseLong(args[8]),
                Long.parseLong(args[9]));
        Duration waitTimeout = Duration.ofNanos(Long.parseLong(args[10]));
        Path report = Path.of(args[11]);

        new LoadSession(settings.warmUp(), new HttpTarget(warmUpService), waitTimeout, new ChargeHistory(),
                new LatencyRecorder()).run();
        ChargeHistory history = new ChargeHistory();
        LatencyRecorder latencies = new LatencyRecorder();
        LoadSession session = new LoadSession(settings, new HttpTarget(service), waitTimeout, new PipeRelay(),
                history, latencies);
        Thread input = new Thread(() -> readInput(session), "worker-input");
        input.setDaemon(true);
        input.start();
        out.println(READY);
        go.await();
        if (endOfInput.getCount() == 0) {
            return 3;
        }
        long start = System.nanoTime();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "worker-progress");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleAtFixedRate(() -> out.println(COMPLETED + session.completed()), 1, 1, TimeUnit.SECONDS);
        try {
            session.run();
        } finally {
            ticker.shutdownNow();
        }
        WorkerReport.of(worker, System.nanoTime() - start, session, history, latencies).write(report);
        return 0;
    }

    /** {@code go} starts the run; each {@code retry} line is a duplicate to send; the end of input ends the run. */
    private void readInput(LoadSession session) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals(GO)) {
                    go.countDown();
                } else if (line.startsWith(RETRY)) {
                    String[] parts = line.split(" ");
                    session.acceptDuplicate(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
                }
            }
        } catch (IOException | InterruptedException ended) {
            // The parent is gone or the run is over: either way, no more duplicates come.
        } finally {
            endOfInput.countDown();
            go.countDown();
        }
    }

    /** Duplicates go out on standard output, for the parent to hand to another worker. */
    private final class PipeRelay implements DuplicateRelay {

        @Override
        public void handOff(int key, long delayNanos) {
            out.println(RETRY + key + " " + delayNanos);
        }

        @Override
        public void awaitLastDuplicate() throws InterruptedException {
            out.println(CLIENTS_DONE);
            endOfInput.await();
        }
    }
}
