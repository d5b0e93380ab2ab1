package dev.idemlab.lab.peers;

import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.PostgresServer;
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
import dev.idemlab.peers.Peers;
import dev.idemlab.peers.ServerOutage;
import dev.idemlab.peers.StoreKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs the post's four experiments, and the load run when asked, on each library against the lab's
 * Redis, or its PostgreSQL for a library that keeps its records there (DBOS). Store down is real: each
 * library is started against a second private server of its store's kind, which is then stopped
 * before the call. A library that cannot start, or an experiment that throws
 * outside the library's call, becomes a "not run" cell; the other cells still run.
 *
 * <p>Not thread-safe: one run at a time.
 */
public final class PeerRunner {

    private final RedisBackend redis;
    private final PostgresBackend postgres;
    private final ExperimentOptions options;
    private final LoadOptions load;
    private final Consumer<String> progress;
    /** Where the Redis servers store-down stopped came from, once one was started. */
    private String stoppedOrigin;
    /** Where the PostgreSQL servers store-down stopped came from, once one was started. */
    private String stoppedPostgresOrigin;

    /**
     * @param redis the lab's Redis; it also starts the servers the store-down experiment stops
     * @param postgres the lab's PostgreSQL, for the libraries that keep their records there, or
     *                 {@code null} when none of those runs
     * @param options the experiments' timing
     * @param load the load run's shape, or {@code null} for no load run
     * @param progress told what is about to run
     */
    public PeerRunner(RedisBackend redis, PostgresBackend postgres, ExperimentOptions options, LoadOptions load,
            Consumer<String> progress) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.postgres = postgres;
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
        return new PeerMatrix(redis.server(), postgres == null ? null : postgres.server(), storeDownHow(), options,
                load, rows);
    }

    private LibraryRow row(PeerFactory library) {
        PeerExperiments experiments = new PeerExperiments(library, storeUri(library), options);
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
                report = new PeerLoad(library, storeUri(library), load).run();
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

    /** Where {@code library} keeps its records: the lab's Redis, or its PostgreSQL. */
    private String storeUri(PeerFactory library) {
        if (library.storeKind() != StoreKind.POSTGRES) {
            return redis.uri();
        }
        if (postgres == null) {
            throw new IllegalStateException(library.name() + " keeps its records in PostgreSQL, and this run has none");
        }
        return Peers.postgresUri(postgres.jdbcUrl(), postgres.user(), postgres.password());
    }

    private ExperimentResult storeDown(PeerFactory library, PeerExperiments experiments) {
        if (library.storeKind() == StoreKind.MEMORY) {
            return experiments.storeDown(NO_SERVER);
        }
        if (library.storeKind() == StoreKind.POSTGRES) {
            storeUri(library); // a run without PostgreSQL says so, as the other cells do
            StoppedPostgres doomed = new StoppedPostgres(postgres.startServerToStop());
            try {
                stoppedPostgresOrigin = doomed.server.origin().description();
                return experiments.storeDown(doomed);
            } finally {
                doomed.stop();
            }
        }
        try (PrivateRedisServer doomed = redis.startServerToStop()) {
            stoppedOrigin = doomed.origin().description();
            return experiments.storeDown(new StoppedServer(doomed));
        }
    }

    private String storeDownHow() {
        if (stoppedOrigin == null && stoppedPostgresOrigin == null) {
            return "no library needed a server stopped";
        }
        List<String> how = new ArrayList<>();
        if (stoppedOrigin != null) {
            how.add("each library on Redis was started against a second redis-server (" + stoppedOrigin + "), which "
                    + "was then stopped before the call; the lab's own server at " + redis.server().address()
                    + " kept running");
        }
        if (stoppedPostgresOrigin != null) {
            how.add("each library on PostgreSQL was started against a second private postgres (" + stoppedPostgresOrigin
                    + "), which was then stopped (fast shutdown) before the call; the lab's own at "
                    + postgres.server().address() + " kept running");
        }
        return String.join("; ", how);
    }

    /** An outage for a library that keeps its records in memory: nothing to stop. */
    private static final ServerOutage NO_SERVER = new ServerOutage() {
        @Override
        public String uri() {
            return null;
        }

        @Override
        public void stop() {
            // an in-memory library has no server
        }
    };

    /** A private PostgreSQL as the experiment's outage: stopping it closes it. */
    private static final class StoppedPostgres implements ServerOutage {

        private final PostgresServer server;
        private final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();

        StoppedPostgres(PostgresServer server) {
            this.server = server;
        }

        @Override
        public String uri() {
            return Peers.postgresUri(server.jdbcUrl(), server.user(), server.password());
        }

        /** Stops the server once: the experiment stops it, and so does whoever ran it, whatever happened. */
        @Override
        public void stop() {
            if (stopped.compareAndSet(false, true)) {
                server.close();
            }
        }
    }

    /** A private server as the experiment's outage: stopping it closes it. */
    private record StoppedServer(PrivateRedisServer server) implements ServerOutage {
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
