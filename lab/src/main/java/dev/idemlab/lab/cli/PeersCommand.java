package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.peers.LabPeers;
import dev.idemlab.lab.peers.PeerMatrix;
import dev.idemlab.lab.peers.PeerRunner;
import dev.idemlab.lab.report.PeersReport;
import dev.idemlab.lab.report.ReportFormat;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.peers.ExperimentOptions;
import dev.idemlab.peers.LoadOptions;
import dev.idemlab.peers.PeerFactory;
import dev.idemlab.peers.StoreKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lab peers}: the post's experiments on the idempotency libraries teams use and on this
 * project's coordinator, on one private Redis, judged from the provider's ledger. Exits 1 only when
 * this project's wait or raise row is wrong; the other libraries' verdicts are reported, not gated.
 */
@Command(name = "peers", mixinStandardHelpOptions = true, subcommands = PeersCrashedWorkerCommand.class,
        description = {"Runs in-flight, key-reuse, provider-timeout and store-down against each library, each wired "
                + "through its documented API in front of the same counting fake provider and on the same Redis: "
                + "this project's coordinator under wait and raise, the post's result cache, Jdempotent (in memory "
                + "and on Redis), the Redisson RLock idiom, Spring Integration's idempotent receiver, Camel's "
                + "idempotent consumer and DBOS Transact's durable workflow (on PostgreSQL). Prints the post's responses-vs-charges rows per library, then the matrix "
                + "library x experiment: one charge, consistent / double charge / wrong answer / not supported.",
                "Store down is real: each library is started against a second private server of its store (a "
                + "redis-server, or a postgres for DBOS), which is then stopped before the call. --load adds concurrent duplicates per library, with duplicate charges "
                + "per 100,000 requests counted from the ledger."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:this project's wait and raise rows are one charge, consistent in every experiment (and "
                + "under --load)", "1:one of them is not, or no Redis (or, for DBOS, no PostgreSQL) could be had", "2:usage error"})
final class PeersCommand implements Callable<Integer> {

    private static final int MAX_LATENCY_MS = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--library", paramLabel = "NAME[,NAME...]", split = ",",
            description = "Run only these libraries: ${COMPLETION-CANDIDATES}. Default: all.",
            completionCandidates = LibraryNames.class)
    List<String> libraries;

    @Option(names = "--load", description = "Also drive each library with concurrent duplicates and count duplicate "
            + "charges per 100,000 requests from the ledger.")
    boolean load;

    @Option(names = "--load-keys", paramLabel = "N", defaultValue = "" + LoadOptions.DEFAULT_REPETITIONS,
            description = "Keys per library in the load run, each sent by " + LoadOptions.DEFAULT_CALLERS
                    + " identical callers at once; 1 to 100000. Default: ${DEFAULT-VALUE}.")
    int loadKeys;

    @Option(names = "--latency-ms", paramLabel = "MS", defaultValue = "300",
            description = "How long the provider takes per charge in the experiments; 1 to " + MAX_LATENCY_MS
                    + ". Default: ${DEFAULT-VALUE}.")
    long latencyMs;

    @Option(names = "--retry-at-ms", paramLabel = "MS", defaultValue = "50",
            description = "When the in-flight retry is sent, in ms after the first call, and never before the first call "
                    + "is inside the provider; 0 or more, below --latency-ms. Default: ${DEFAULT-VALUE}.")
    long retryAtMs;

    @Option(names = "--redis-url", paramLabel = "URL",
            description = "Use this Redis (redis://host:port) instead of starting one. Also env IDEMLAB_REDIS_URL. "
                    + "Store down then stops a private server the lab starts, never this one.")
    String redisUrl;

    @Option(names = "--redis-from", paramLabel = "ORIGIN",
            description = "Take Redis only from: url, system (redis-server on PATH), bundled, container.")
    Origin redisFrom;

    @Mixin
    PostgresOptions postgresServer;

    @Mixin
    OutputOptions output;

    @Option(names = "--results", paramLabel = "DIR",
            description = "Also write the same run as peers.txt, peers.json and peers.md into DIR.")
    Path results;

    @Override
    public Integer call() {
        List<PeerFactory> chosen = chosen(((LabCommand) spec.root().userObject()).coordinators());
        ExperimentOptions options = experimentOptions();
        if (!load && spec.commandLine().getParseResult().hasMatchedOption("--load-keys")) {
            throw new UsageException("--load-keys sizes the load run, which only --load starts; add --load or drop it");
        }
        LoadOptions loadOptions = load ? loadOptions() : null;
        if (redisFrom == Origin.IN_PROCESS) {
            throw new UsageException("--redis-from must be url, system, bundled or container: Redis cannot run in-process");
        }
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter progress = System.console() != null ? err : null;
        postgresServer.check();
        PeerMatrix matrix;
        ProvisioningOptions servers = new ProvisioningOptions(redisUrl, redisFrom, postgresServer.pgUrl,
                postgresServer.pgFrom);
        boolean onPostgres = chosen.stream().anyMatch(library -> library.storeKind() == StoreKind.POSTGRES);
        try (RedisBackend redis = RedisBackend.open(servers);
             PostgresBackend postgres = onPostgres ? PostgresBackend.open(servers) : null) {
            say(progress, "using " + redis.server().describe() + (postgres == null ? "" : " and "
                    + postgres.server().describe()));
            matrix = new PeerRunner(redis, postgres, options, loadOptions, line -> say(progress, "running " + line))
                    .run(chosen);
            if (postgres != null) {
                postgres.cleanUp().ifPresent(err::println);
            }
        }
        output.emit(PeersReport.render(output.format, matrix), spec.commandLine().getOut());
        if (results != null) {
            writeResults(matrix);
        }
        List<String> failures = matrix.gateFailures();
        failures.forEach(failure -> err.println("lab: FAIL " + failure));
        err.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    /** Every format of the one run, so that published pages never mix two runs. */
    private void writeResults(PeerMatrix matrix) {
        try {
            Files.createDirectories(results);
            for (ReportFormat format : ReportFormat.values()) {
                String name = "peers." + (format == ReportFormat.TABLE ? "txt" : format == ReportFormat.JSON ? "json" : "md");
                Files.writeString(results.resolve(name), PeersReport.render(format, matrix), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UsageException("cannot write --results " + results + ": " + e.getMessage());
        }
        spec.commandLine().getOut().println("wrote peers.txt, peers.json and peers.md to " + results);
    }

    private List<PeerFactory> chosen(CoordinatorFactory coordinators) {
        List<PeerFactory> all = LabPeers.all(coordinators);
        if (libraries == null || libraries.isEmpty()) {
            return all;
        }
        List<String> names = LabPeers.names();
        List<PeerFactory> chosen = new ArrayList<>();
        for (String name : new LinkedHashSet<>(libraries)) {
            if (!names.contains(name)) {
                throw new UsageException("--library must name libraries among " + String.join(", ", names)
                        + "; got '" + name + "'");
            }
            chosen.add(all.get(names.indexOf(name)));
        }
        return chosen;
    }

    private ExperimentOptions experimentOptions() {
        if (latencyMs < 1 || latencyMs > MAX_LATENCY_MS) {
            throw new UsageException("--latency-ms must be between 1 and " + MAX_LATENCY_MS + ", got " + latencyMs);
        }
        if (retryAtMs < 0 || retryAtMs >= latencyMs) {
            throw new UsageException("--retry-at-ms must be 0 or more and below --latency-ms (" + latencyMs
                    + "), so that the retry arrives while the first call runs; got " + retryAtMs);
        }
        return ExperimentOptions.defaults().withLatency(Duration.ofMillis(latencyMs))
                .withRetryAt(Duration.ofMillis(retryAtMs));
    }

    private LoadOptions loadOptions() {
        if (loadKeys < 1 || loadKeys > 100_000) {
            throw new UsageException("--load-keys must be between 1 and 100000, got " + loadKeys);
        }
        LoadOptions defaults = LoadOptions.defaults();
        return new LoadOptions(defaults.callers(), loadKeys, defaults.latency(), defaults.budget());
    }

    private static void say(PrintWriter progress, String line) {
        if (progress != null) {
            progress.println("lab: " + line + " ...");
            progress.flush();
        }
    }

    /** The library names, for help and completion. */
    static final class LibraryNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return LabPeers.names().iterator();
        }
    }
}
