package dev.idemlab.lab.peers;

import dev.idemlab.lab.infra.PrivateRedisServer;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.peers.Experiment;
import dev.idemlab.peers.ExperimentOptions;
import dev.idemlab.peers.ExperimentResult;
import dev.idemlab.peers.LoadOptions;
import dev.idemlab.peers.LoadReport;
import dev.idemlab.peers.PeerExperiments;
import dev.idemlab.peers.PeerFactory;
import dev.idemlab.peers.PeerLoad;
import dev.idemlab.peers.RedisOutage;
import dev.idemlab.peers.StoreKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs the post's four experiments, and the load run when asked, on each library against the lab's
 * Redis. Store down is real: each library is started against a second private {@code redis-server},
 * which is then stopped before the call. A library that cannot start, or an experiment that throws
 * outside the library's call, becomes a "not run" cell; the other cells still run.
 *
 * <p>Not thread-safe: one run at a time.
 */
public final class PeerRunner {

    private final RedisBackend redis;
    private final ExperimentOptions options;
    private final LoadOptions load;
    private final Consumer<String> progress;
    /** Where the servers store-down stopped came from, once one was started. */
    private String stoppedOrigin;

    /**
     * @param redis the lab's Redis; it also starts the servers the store-down experiment stops
     * @param options the experiments' timing
     * @param load the load run's shape, or {@code null} for no load run
     * @param progress told what is about to run
     */
    public PeerRunner(RedisBackend redis, ExperimentOptions options, LoadOptions load, Consumer<String> progress) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.options = Objects.requireNonNull(options, "options");
        this.load = load;
        this.progress = Objects.requireNonNull(progress, "progress");
    }

    /** Runs every experiment on every library, in the order given. */
    public PeerMatrix run(List<PeerFactory> libraries) {
        List<LibraryRow> rows = new ArrayList<>();
        for (PeerFactory library : libraries) {
            rows.add(row(library));
        }
        return new PeerMatrix(redis.server(), storeDownHow(), options, load, rows);
    }

    private LibraryRow row(PeerFactory library) {
        PeerExperiments experiments = new PeerExperiments(library, redis.uri(), options);
        List<PeerCell> cells = new ArrayList<>();
        cells.add(cell(library, Experiment.IN_FLIGHT, experiments::inFlight));
        cells.add(cell(library, Experiment.KEY_REUSE, experiments::keyReuse));
        cells.add(cell(library, Experiment.PROVIDER_TIMEOUT, experiments::providerTimeout));
        cells.add(cell(library, Experiment.STORE_DOWN, () -> storeDown(library, experiments)));
        LoadReport report = null;
        String loadFailure = null;
        if (load != null) {
            progress.accept("load on " + library.name());
            try {
                report = new PeerLoad(library, redis.uri(), load).run();
            } catch (RuntimeException e) {
                loadFailure = PeerCell.describe(e);
            }
        }
        ExperimentResult any = cells.stream().map(PeerCell::result)
                .filter(r -> r != null && !r.version().isEmpty()).findFirst().orElse(null);
        return new LibraryRow(library.name(), any == null ? "" : any.version(), any == null ? "" : any.wiring(),
                library.storeKind(), cells, report, loadFailure);
    }

    private PeerCell cell(PeerFactory library, Experiment experiment, Supplier<ExperimentResult> run) {
        progress.accept(experiment.id() + " on " + library.name());
        try {
            return PeerCell.of(run.get());
        } catch (RuntimeException e) {
            return PeerCell.failed(experiment, e);
        }
    }

    private ExperimentResult storeDown(PeerFactory library, PeerExperiments experiments) {
        if (library.storeKind() == StoreKind.MEMORY) {
            return experiments.storeDown(NO_SERVER);
        }
        try (PrivateRedisServer doomed = redis.startServerToStop()) {
            stoppedOrigin = doomed.origin().description();
            return experiments.storeDown(new StoppedServer(doomed));
        }
    }

    private String storeDownHow() {
        if (stoppedOrigin == null) {
            return "no library needed a server stopped";
        }
        return "each library was started against a second redis-server (" + stoppedOrigin + "), which was then "
                + "stopped before the call; the lab's own server at " + redis.server().address() + " kept running";
    }

    /** An outage for a library that keeps its records in memory: nothing to stop. */
    private static final RedisOutage NO_SERVER = new RedisOutage() {
        @Override
        public String uri() {
            return null;
        }

        @Override
        public void stop() {
            // an in-memory library has no server
        }
    };

    /** A private server as the experiment's outage: stopping it closes it. */
    private record StoppedServer(PrivateRedisServer server) implements RedisOutage {
        @Override
        public String uri() {
            return server.uri();
        }

        @Override
        public void stop() {
            server.close();
        }
    }
}
