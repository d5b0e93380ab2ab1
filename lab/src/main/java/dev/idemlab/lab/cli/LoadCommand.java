package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.infra.ProvisioningException;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.HttpLoadGenerator;
import dev.idemlab.lab.load.LoadComparison;
import dev.idemlab.lab.load.LoadFaults;
import dev.idemlab.lab.load.LoadGenerator;
import dev.idemlab.lab.load.LoadProgress;
import dev.idemlab.lab.load.LoadRun;
import dev.idemlab.lab.load.LoadSettings;
import dev.idemlab.lab.report.FaultReport;
import dev.idemlab.lab.report.LoadReport;
import dev.idemlab.lab.report.ReportFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lab load}: the stores compared under concurrent retries, with exactly-once checked against
 * the provider's ledger after every run. Exits 1 when a policy that promises exactly-once charged a
 * key twice (or a response contradicts the ledger); duplicates under run are expected and reported.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Closed-loop clients charge orders through the coordinator; a fraction of requests is re-sent "
                + "with the same key while the first is still in flight. Each store and policy gets a fresh provider "
                + "whose ledger is checked at the end: keys charged, duplicate charges, responses that disagree "
                + "with the ledger. Reports throughput and latency percentiles per store and policy. With --transport "
                + "http, worker processes (--workers) send every request over HTTP to one demo payment API behind the "
                + "Idempotency-Key filter, and the report adds a row per worker.")
final class LoadCommand implements Callable<Integer> {

    static final int MAX_CLIENTS = 1024;
    static final int MAX_LATENCY_MS = 10_000;
    static final long MAX_REQUESTS = 100_000_000;
    static final int MAX_RATE = 1_000_000;

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOptions store;

    @Mixin
    HttpLoadOptions overHttp;

    @Mixin
    CapacityOptions capacity;

    @Option(names = "--compare", paramLabel = "STORE[,STORE...]", split = ",", hideParamSyntax = true,
            description = "Compare these stores (comma-separated: " + StoreBackends.NAMES_TEXT + "), one after the other, "
                    + "instead of --store. A store whose server cannot be had is reported and fails the run; the "
                    + "others are still loaded and reported.")
    List<String> compare;

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "In-flight policy: run, wait, raise or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "32",
            description = "Client threads (per worker with --transport http), each with one request and at most one "
                    + "duplicate in flight; 1 to "
                    + MAX_CLIENTS + ". Default: ${DEFAULT-VALUE}.")
    int clients;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "How long each store and policy is loaded, from 100ms to 1h: 500ms, 20s, 1m. "
                    + "Default: 10s, unless --requests.")
    Duration duration;

    @Option(names = "--requests", paramLabel = "N",
            description = "Stop each store and policy after N requests, duplicates included, instead of a duration; "
                    + "1 to " + MAX_REQUESTS + ".")
    Long requests;

    @Option(names = "--rate", paramLabel = "PER_SECOND",
            description = "Open loop: start this many logical requests per second at a constant rate, 1 to "
                    + MAX_RATE + ", whatever the answers' pace, with at most --clients in flight; latency is counted "
                    + "from each request's intended start, so waiting for a free client counts. --requests then "
                    + "counts logical requests. Default: closed-loop clients.")
    Double rate;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "1000000000",
            description = "Distinct logical requests the clients draw from, 1 to " + Integer.MAX_VALUE
                    + "; large means nearly every key is fresh. Default: ${DEFAULT-VALUE}.")
    long keys;

    @Option(names = "--retry-rate", paramLabel = "FRACTION", defaultValue = "0.2",
            description = "Fraction of requests re-sent with the same key while the first is in flight, 0 to 1. "
                    + "Default: ${DEFAULT-VALUE}.")
    double retryRate;

    @Option(names = {"--latency-ms", "--provider-latency-ms"}, paramLabel = "MS", defaultValue = "5",
            description = "How long the fake provider takes per charge, 0 to " + MAX_LATENCY_MS
                    + " (the same option as scenario's --latency-ms). Default: ${DEFAULT-VALUE}.")
    long latencyMs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the clients' choices of key and retry: any 64-bit integer. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table, json, markdown. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Option(names = "--results", paramLabel = "DIR",
            description = "Also write load.json, load.csv, load.md and the PNG charts into DIR (created if its "
                    + "parent exists).")
    Path results;

    @Option(names = "--stall", paramLabel = "EVERY:FOR",
            description = "Stall the store's private Redis server (SIGSTOP, then SIGCONT) every EVERY for FOR during "
                    + "each run, e.g. 5s:1500ms; EVERY from 1s to 10m, FOR from 100ms to less than EVERY. Reports stalls, "
                    + "duplicate charges, keys whose callers got different charges and storage errors.")
    String stall;

    @Option(names = "--downstream-key", paramLabel = "on|off", defaultValue = "off",
            description = "on: the provider deduplicates on the key the action passes it (the client's key, the same "
                    + "for every retry), so even a request that failed open charges once. Default: ${DEFAULT-VALUE}.")
    String downstreamKey;

    @Option(names = "--store-patience-ms", paramLabel = "MS",
            description = "The coordinator's patience with a timed-out store call, 0 to 60000 ms. Default: the "
                    + "library's (2000).")
    Long storePatienceMs;

    @Option(names = "--library", paramLabel = "NAME[,NAME...]",
            description = "Drive the named peer libraries (see lab peers --help) with concurrent duplicates instead "
                    + "of this project's coordinator, and report duplicate charges per 100,000 requests from the "
                    + "ledger: the same as lab peers --library NAME --load.")
    String library;

    @Override
    public Integer call() throws InterruptedException, IOException {
        capacity.validate(spec);
        if (capacity.requested()) {
            return capacity();
        }
        int workers = overHttp.workers(library != null, rate != null,
                stall != null || "on".equals(downstreamKey) || storePatienceMs != null, requests);
        if (library != null) {
            // The peers' load: each library driven with concurrent duplicates, counted against the ledger.
            return spec.root().commandLine().execute("peers", "--library", library, "--load");
        }
        LoadSettings settings = settings();
        settings = withRate(settings);
        List<String> stores = stores();
        ProvisioningOptions provisioning = store.provisioning(stores);
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.validate();
        LoadResults.validate(results);
        PrintWriter err = spec.commandLine().getErr();
        List<LabPolicy> policies = policy.policies();
        LoadFaults faults = faults(stores);
        Loader loader = workers > 0 ? new HttpLoadGenerator(settings, workers, progress(err))::run
                : new LoadGenerator(settings, ((LabCommand) spec.root().userObject()).coordinators(), progress(err),
                        faults)::run;
        List<LoadRun> runs = new ArrayList<>();
        List<String> notLoaded = new ArrayList<>();
        for (String name : stores) {
            StoreBackend backend;
            try {
                backend = StoreBackends.open(name, provisioning);
            } catch (ProvisioningException unavailable) {
                // The other stores are still loaded and reported; the run fails at the end.
                // Said once: at once when other stores follow, else as the run's one error line.
                String line = name + " could not be loaded: " + unavailable.getMessage();
                notLoaded.add(line);
                if (stores.size() > 1) {
                    err.println("lab: " + line);
                    err.flush();
                }
                continue;
            }
            try (backend) {
                for (LabPolicy each : policies) {
                    try {
                        runs.add(loader.run(backend, each));
                    } catch (IllegalArgumentException cannotStall) {
                        throw new UsageException("--stall: " + cannotStall.getMessage());
                    }
                }
            } finally {
                StoreOptions.cleanUp(backend, err);
            }
        }
        if (runs.isEmpty()) {
            throw new CommandFailure(stores.size() == 1 ? notLoaded.get(0)
                    : "none of " + String.join(", ", stores) + " could be loaded (each said why above)");
        }
        if (faults != LoadFaults.NONE) {
            return faultReport(settings, faults, runs);
        }
        LoadComparison comparison = new LoadComparison(settings, runs);
        PrintWriter stdout = spec.commandLine().getOut();
        if (results != null) {
            LoadResults.write(results, comparison, stdout);
        }
        output.emit(LoadReport.render(format, comparison), stdout);
        for (String line : notLoaded) {
            err.println("lab: not in the report: " + line);
        }
        err.flush();
        return comparison.passed() && notLoaded.isEmpty() ? 0 : 1;
    }

    /** {@code --find-knee} or {@code --filter-cost}: their own runs and report, on the load's stores and clients. */
    private int capacity() throws InterruptedException, IOException {
        OutputOptions output = OutputOptions.tableOrMarkdown(format, out);
        if (duration == null) {
            duration = CapacityRun.DEFAULT_STEP;
        }
        LoadSettings settings = settings();
        List<String> stores = stores();
        CapacityRun run = new CapacityRun(stores, store.provisioning(stores), spec.commandLine().getErr());
        CapacityRun.Report report;
        if (capacity.findKnee) {
            boolean named = spec.commandLine().getParseResult().hasMatchedOption("--policy");
            if (named && policy != PolicyChoice.WAIT && policy != PolicyChoice.RAISE) {
                throw new UsageException("--find-knee needs one policy that promises exactly-once, wait or raise: "
                        + "a knee with duplicate charges is no knee, got " + policy.name().toLowerCase(java.util.Locale.ROOT));
            }
            long start = rate == null ? CapacityRun.DEFAULT_START_RATE : (long) withRate(settings).rate();
            report = run.findKnees(settings, named ? policy.policies().get(0) : LabPolicy.WAIT,
                    capacity.kneeSettings(start, MAX_RATE), ((LabCommand) spec.root().userObject()).coordinators());
        } else {
            if (capacity.flightRecordings != null) {
                java.nio.file.Files.createDirectories(capacity.flightRecordings);
            }
            report = run.filterCost(settings, capacity.flightRecordings == null ? null
                    : capacity.flightRecordings.toAbsolutePath(), capacity.samples());
        }
        output.emit(report.markdown(), spec.commandLine().getOut());
        return report.met() ? 0 : 1;
    }

    /** @throws UsageException naming the rule a value breaks */
    LoadFaults faults(List<String> stores) {
        if (!downstreamKey.equals("on") && !downstreamKey.equals("off")) {
            throw new UsageException("--downstream-key must be on or off, got '" + downstreamKey + "'");
        }
        if (storePatienceMs != null && (storePatienceMs < 0 || storePatienceMs > 60_000)) {
            throw new UsageException("--store-patience-ms must be between 0 and 60000, got " + storePatienceMs);
        }
        Duration every = null;
        Duration length = null;
        if (stall != null) {
            String[] parts = stall.split(":", -1);
            if (parts.length != 2) {
                throw new UsageException("--stall must be EVERY:FOR, like 5s:1500ms, got '" + stall + "'");
            }
            every = parseStallTime("EVERY", parts[0]);
            length = parseStallTime("FOR", parts[1]);
            if (every.compareTo(Duration.ofSeconds(1)) < 0 || every.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new UsageException("--stall: EVERY must be from 1s to 10m, got '" + parts[0] + "'");
            }
            if (length.compareTo(every) >= 0) {
                throw new UsageException("--stall: FOR must be shorter than EVERY, got '" + stall + "'");
            }
            if (!stores.equals(List.of("redis"))) {
                throw new UsageException("--stall stalls the lab's own private Redis server: use it with --store redis");
            }
        }
        boolean keyed = downstreamKey.equals("on");
        Duration patience = storePatienceMs == null ? null : Duration.ofMillis(storePatienceMs);
        if (every == null && !keyed && patience == null) {
            return LoadFaults.NONE;
        }
        return new LoadFaults(every, length, keyed, patience);
    }

    private static Duration parseStallTime(String part, String text) {
        try {
            return new DurationConverter().convert(text);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new UsageException("--stall: " + part + " must be a time from 100ms to 1h written like 1500ms or 5s, got '"
                    + text + "'");
        }
    }

    /**
     * The usual report, then per run the faults and what they cost: stalls made, duplicate charges,
     * keys whose callers got different charges, storage errors. Exits 1 only where the downstream key
     * was on and the ledger still holds a duplicate, or a response contradicts the ledger: failing
     * open while the store stalls is the library's documented choice, and its duplicates are the figure.
     */
    private int faultReport(LoadSettings settings, LoadFaults faults, List<LoadRun> runs) {
        LoadComparison comparison = new LoadComparison(settings, runs);
        String report = FaultReport.render(format, faults, runs, LoadReport.render(format, comparison));
        PrintWriter stdout = spec.commandLine().getOut();
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.emit(report, stdout);
        boolean failed = runs.stream().anyMatch(run -> run.check().responsesNotInLedger() > 0
                || (faults.downstreamKey() && run.check().duplicateCharges() > 0));
        return failed ? 1 : 0;
    }

    /** @throws UsageException naming the rule a value breaks */
    LoadSettings settings() {
        Bounds.check("--clients", clients, 1, MAX_CLIENTS);
        if (!(retryRate >= 0 && retryRate <= 1)) {
            throw new UsageException("--retry-rate must be between 0 and 1, got " + retryRate);
        }
        Bounds.check("--latency-ms", latencyMs, 0, MAX_LATENCY_MS);
        Bounds.check("--keys", keys, 1, Integer.MAX_VALUE);
        if (duration != null && requests != null) {
            throw new UsageException("--duration and --requests both say when to stop: give one, not both");
        }
        if (requests != null) {
            Bounds.check("--requests", requests, 1, MAX_REQUESTS);
        }
        Duration stop = requests != null ? null : duration == null ? LoadSettings.DEFAULT_DURATION : duration;
        return new LoadSettings(clients, retryRate, Duration.ofMillis(latencyMs), (int) keys, stop,
                requests == null ? 0 : requests, seed);
    }

    /** @throws UsageException if {@code --rate} is out of its range */
    LoadSettings withRate(LoadSettings settings) {
        if (rate == null) {
            return settings;
        }
        if (!(rate >= 1 && rate <= MAX_RATE)) {
            throw new UsageException("--rate must be between 1 and " + MAX_RATE + " requests per second, got " + rate);
        }
        return settings.withRate(rate);
    }

    List<String> stores() {
        if (compare == null) {
            return List.of(store.validatedStore());
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--store")) {
            throw new UsageException("--store and --compare both name the stores: give one, not both");
        }
        Set<String> names = new LinkedHashSet<>();
        for (String name : compare) {
            names.add(StoreOptions.storeName("--compare", name));
        }
        return List.copyOf(names);
    }

    /** Loads one store under one policy: in process, or over HTTP from worker processes. */
    private interface Loader {
        LoadRun run(StoreBackend backend, LabPolicy policy) throws IOException, InterruptedException;
    }

    /** On a terminal, a line rewritten every second; otherwise one line per finished store and policy. */
    private static LoadProgress progress(PrintWriter err) {
        boolean terminal = Progress.onTerminal();
        return new LoadProgress() {
            @Override
            public void update(String line) {
                if (terminal) {
                    err.print("\r\033[2Klab: load " + line);
                    err.flush();
                }
            }

            @Override
            public void finished(String line) {
                err.println((terminal ? "\r\033[2K" : "") + "lab: load " + line);
                err.flush();
            }
        };
    }
}
