package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.load.FilterCostServerMain.Handler;
import dev.idemlab.lab.scenario.ChildHolder;
import dev.idemlab.lab.scenario.StoreEndpoint;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The Idempotency-Key filter's cost over HTTP, judged against the protocol's floor: the demo payment
 * API with the filter, the same handler doing the store's raw writes by hand around the charge (a raw
 * read for a taken key), and the same handler bare, each driven by the load's closed-loop clients
 * through JDK {@code HttpClient}s ({@link HttpTarget}), per kind of request:
 *
 * <ul>
 *   <li>first calls: fresh keys, so the filter reserves, the handler charges, the filter stores;</li>
 *   <li>replays: every key answered once before the run, so the filter replays and the handler does not run;</li>
 *   <li>in-flight conflicts: every key's first request held inside the provider for the whole run, so
 *       the filter answers 409 (RAISE, the draft's) and the handler does not run.</li>
 * </ul>
 *
 * Each server runs in a JVM of its own ({@link FilterCostServerMain}), started fresh per run and warmed
 * up first ({@link #WARM_UP} of first calls, then as long of the measured kind), so that the CPU time read from that process before and after the run is the server's
 * machine time, none of the clients'. The bare run sends the same requests, and every one runs the
 * handler. No duplicates are sent during a run, so each row measures one kind.
 *
 * <p>Not thread-safe: run one comparison at a time.
 */
public final class FilterCost {

    /** Keys answered before a replay run, or held in flight during a conflict run. */
    public static final int PRIMED_KEYS = 64;
    /** The server's heap: the same for the three handlers, large enough that a run's records never crowd it. */
    public static final String SERVER_HEAP = "-Xmx512m";
    /**
     * How long a fresh server is warmed up with first calls, and again with the measured kind when that is
     * another (no longer than a run): long enough for the JIT to have compiled the request's hot path before its CPU time counts.
     */
    public static final Duration WARM_UP = Duration.ofSeconds(2);
    /** How far the warm-up's seed lies from the measured run's: more draws than any run makes ({@link #firstCalls}). */
    static final long WARM_UP_SEED_DISTANCE = 1L << 40;

    private final LoadSettings settings;
    private final LoadProgress progress;
    private final ServerMeter meter;
    private final Path flightRecordings;
    private final List<FlightProfile> profiles = new ArrayList<>();

    /**
     * @param settings clients, provider latency and duration of each run; retries and rate are not used
     * @param progress where a line per run goes
     * @param flightRecordings where each server JVM writes a flight recording of its life, or {@code null} for none
     */
    public FilterCost(LoadSettings settings, LoadProgress progress, Path flightRecordings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.flightRecordings = flightRecordings;
        this.meter = new ServerMeter(settings, progress);
        if (settings.stopsByCount() || settings.openLoop()) {
            throw new IllegalArgumentException("the filter comparison runs closed-loop clients for a duration");
        }
    }

    /**
     * Every kind of request on one store.
     *
     * @throws InterruptedException if interrupted while a run is under way
     */
    public List<FilterCostRow> run(StoreBackend backend) throws InterruptedException {
        List<FilterCostRow> rows = new ArrayList<>();
        for (RequestKind kind : RequestKind.values()) {
            rows.add(run(backend, kind));
        }
        return rows;
    }

    private FilterCostRow run(StoreBackend backend, RequestKind kind) throws InterruptedException {
        ChargeHistory filteredHistory = new ChargeHistory();
        ChargeHistory rawHistory = new ChargeHistory();
        FilterCostRow.Measure filtered = measure(backend, kind, Handler.FILTERED, filteredHistory);
        FilterCostRow.Measure raw = measure(backend, kind, Handler.RAW_WRITES, rawHistory);
        FilterCostRow.Measure bare = measure(backend, kind, Handler.BARE, new ChargeHistory());
        return new FilterCostRow(backend.name(), kind, filtered, raw, bare, answeredAsKind(kind, filteredHistory),
                answers(filteredHistory), answeredAsKind(kind, rawHistory), answers(rawHistory));
    }

    /** One server in its own JVM: started, warmed up, primed for the kind, measured, stopped, its profile read. */
    private FilterCostRow.Measure measure(StoreBackend backend, RequestKind kind, Handler handler,
                                          ChargeHistory history) throws InterruptedException {
        String label = backend.name() + "/" + kind.label() + ", " + handler.label();
        StoreEndpoint endpoint = StoreEndpoint.of(backend)
                .orElse(new StoreEndpoint(FilterCostServerMain.MEMORY, "in-process", null, null));
        Instant[] window = new Instant[2];
        FilterCostRow.Measure measure;
        try (ChildHolder server = ChildHolder.start(endpoint, jvmOptions(backend, kind, handler),
                FilterCostServerMain.class, handler.name(), Long.toString(settings.providerLatency().toNanos()))) {
            measure = measureOn(server, kind, handler, label, history, window);
        }
        // The recording is complete once the server's JVM has exited.
        if (flightRecordings != null) {
            readProfile(label, recording(backend, kind, handler), window[0], window[1]);
        }
        return measure;
    }

    /** Warms {@code server} up, primes it, measures it and stops it; {@code window} gets the run's start and end. */
    private FilterCostRow.Measure measureOn(ChildHolder server, RequestKind kind, Handler handler, String label,
                                            ChargeHistory history, Instant[] window) throws InterruptedException {
        URI uri = URI.create(server.await(FilterCostServerMain.LISTENING));
        meter.warmUpWithFirstCalls(uri);
        ExecutorService holders = Executors.newFixedThreadPool(PRIMED_KEYS);
        try {
            if (handler != Handler.BARE) {
                prime(kind, uri, server, holders);
            }
            meter.warmUpWith(uri, kind);
            window[0] = Instant.now();
            FilterCostRow.Measure measure = meter.measure(label, uri, server.pid(), kind, history);
            window[1] = Instant.now();
            return measure;
        } finally {
            server.send(FilterCostServerMain.RELEASE);
            holders.shutdown();
            holders.awaitTermination(1, TimeUnit.MINUTES);
            server.send(FilterCostServerMain.STOP);
            if (server.awaitExit() != 0) {
                progress.finished(label + ": the server's JVM exited with a failure");
            }
        }
    }

    /** The profiles of the measured runs, in the order they ran; empty without flight recordings. */
    public List<FlightProfile> profiles() {
        return List.copyOf(profiles);
    }

    private void readProfile(String label, Path recording, Instant from, Instant to) {
        try {
            profiles.add(FlightProfile.read(label, recording, from, to));
        } catch (java.io.IOException e) {
            progress.finished(label + ": its flight recording could not be read: " + e.getMessage());
        }
    }

    private Path recording(StoreBackend backend, RequestKind kind, Handler handler) {
        return flightRecordings.resolve(String.format(Locale.ROOT, "%s-%s-%s.jfr", backend.name(),
                kind.label().replace(' ', '-'), handler.label()));
    }

    private List<String> jvmOptions(StoreBackend backend, RequestKind kind, Handler handler) {
        List<String> options = new ArrayList<>(List.of(SERVER_HEAP));
        if (flightRecordings != null) {
            options.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                    + recording(backend, kind, handler));
        }
        return options;
    }

    /** The seed of a warm-up before a run seeded {@code seed}: one whose keys that run never draws. */
    static long warmUpSeed(long seed) {
        return seed + WARM_UP_SEED_DISTANCE;
    }

    /** Keys 0 to {@link #PRIMED_KEYS}: answered once before a replay run, held in flight for a conflict run. */
    private static void prime(RequestKind kind, URI uri, ChildHolder server, ExecutorService holders)
            throws InterruptedException {
        if (kind == RequestKind.REPLAY) {
            ServerMeter.answerPrimedKeys(uri);
        } else if (kind == RequestKind.IN_FLIGHT_CONFLICT) {
            HttpTarget target = new HttpTarget(uri);
            ChargeHistory scratch = new ChargeHistory();
            server.send(FilterCostServerMain.HOLD);
            for (int key = 0; key < PRIMED_KEYS; key++) {
                int each = key;
                holders.execute(() -> target.send(each, scratch));
            }
            server.send(FilterCostServerMain.AWAIT_HELD + PRIMED_KEYS);
            String answer = server.awaitAny(FilterCostServerMain.HELD, "not held");
            if (!answer.equals(FilterCostServerMain.HELD)) {
                throw new IllegalStateException("the conflict run's first requests did not reach the provider: " + answer);
            }
        }
    }

    /** {@code executed 1380, replayed 22, in-progress 0, indeterminate 0}: what a run's requests got. */
    static String answers(ChargeHistory history) {
        return String.format(Locale.ROOT, "executed %d, replayed %d, in-progress %d, indeterminate %d",
                history.answers(Outcome.EXECUTED), history.answers(Outcome.REPLAYED),
                history.errors(ErrorKind.IN_PROGRESS), history.indeterminate());
    }

    private static long answeredAsKind(RequestKind kind, ChargeHistory history) {
        return switch (kind) {
            case FIRST_CALL -> history.answers(Outcome.EXECUTED);
            case REPLAY -> history.answers(Outcome.REPLAYED);
            case IN_FLIGHT_CONFLICT -> history.errors(ErrorKind.IN_PROGRESS);
        };
    }
}
