package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.LoadComparison;
import dev.idemlab.lab.load.LoadFaults;
import dev.idemlab.lab.load.LoadGenerator;
import dev.idemlab.lab.load.LoadProgress;
import dev.idemlab.lab.load.LoadRun;
import dev.idemlab.lab.load.LoadSettings;
import dev.idemlab.lab.report.FaultReport;
import dev.idemlab.lab.report.LoadCharts;
import dev.idemlab.lab.report.LoadReport;
import dev.idemlab.lab.report.ReportFormat;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
                + "with the ledger. Reports throughput and latency percentiles per store and policy.")
final class LoadCommand implements Callable<Integer> {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,7})(ms|s|m)");
    private static final int MAX_CLIENTS = 1024;
    private static final int MAX_PROVIDER_LATENCY_MS = 10_000;

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOptions store;

    @Option(names = "--compare", paramLabel = "STORE[,STORE...]", split = ",",
            description = "Compare these stores, one after the other, instead of --store.")
    List<String> compare;

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "In-flight policy: run, wait, raise or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "32",
            description = "Client threads, each with one request and at most one duplicate in flight. Default: ${DEFAULT-VALUE}.")
    int clients;

    @Option(names = "--duration", paramLabel = "TIME",
            description = "How long each store and policy is loaded: 500ms, 20s, 1m. Default: 10s, unless --requests.")
    String duration;

    @Option(names = "--requests", paramLabel = "N",
            description = "Stop each store and policy after N requests, duplicates included, instead of a duration.")
    Long requests;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "1000000000",
            description = "Distinct logical requests the clients draw from; large means nearly every key is fresh. Default: ${DEFAULT-VALUE}.")
    long keys;

    @Option(names = "--retry-rate", paramLabel = "FRACTION", defaultValue = "0.2",
            description = "Fraction of requests re-sent with the same key while the first is in flight (0..1). Default: ${DEFAULT-VALUE}.")
    double retryRate;

    @Option(names = "--provider-latency-ms", paramLabel = "MS", defaultValue = "5",
            description = "How long the fake provider takes per charge. Default: ${DEFAULT-VALUE}.")
    int providerLatencyMs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the clients' choices of key and retry. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table, json, markdown. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Write the report to FILE (written whole, or not at all) instead of standard output.")
    Path out;

    @Option(names = "--results", paramLabel = "DIR",
            description = "Also write load.json, load.csv, load.md and the PNG charts into DIR.")
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

    @Override
    public Integer call() throws InterruptedException, IOException {
        LoadSettings settings = settings();
        List<String> stores = stores();
        List<LabPolicy> policies = policy.policies();
        LoadFaults faults = faults(stores);
        LoadGenerator generator = new LoadGenerator(settings,
                ((LabCommand) spec.root().userObject()).coordinators(), progress(), faults);
        List<LoadRun> runs = new ArrayList<>();
        for (String name : stores) {
            try (StoreBackend backend = StoreBackends.open(name, store.provisioning())) {
                for (LabPolicy each : policies) {
                    try {
                        runs.add(generator.run(backend, each));
                    } catch (IllegalArgumentException cannotStall) {
                        throw new UsageException("--stall: " + cannotStall.getMessage());
                    }
                }
            }
        }
        if (faults != LoadFaults.NONE) {
            return faultReport(settings, faults, runs);
        }
        LoadComparison comparison = new LoadComparison(settings, runs);
        PrintWriter stdout = spec.commandLine().getOut();
        if (results != null) {
            writeResults(comparison, stdout);
        }
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.emit(LoadReport.render(format, comparison), stdout);
        return comparison.passed() ? 0 : 1;
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
            return parseDuration(text);
        } catch (UsageException e) {
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
        if (clients < 1 || clients > MAX_CLIENTS) {
            throw new UsageException("--clients must be between 1 and " + MAX_CLIENTS + ", got " + clients);
        }
        if (!(retryRate >= 0 && retryRate <= 1)) {
            throw new UsageException("--retry-rate must be between 0 and 1, got " + retryRate);
        }
        if (providerLatencyMs < 0 || providerLatencyMs > MAX_PROVIDER_LATENCY_MS) {
            throw new UsageException("--provider-latency-ms must be between 0 and " + MAX_PROVIDER_LATENCY_MS
                    + ", got " + providerLatencyMs);
        }
        if (keys < 1 || keys > Integer.MAX_VALUE) {
            throw new UsageException("--keys must be between 1 and " + Integer.MAX_VALUE + ", got " + keys);
        }
        if (duration != null && requests != null) {
            throw new UsageException("--duration and --requests both say when to stop: give one, not both");
        }
        if (requests != null && requests < 1) {
            throw new UsageException("--requests must be at least 1, got " + requests);
        }
        Duration stop = requests != null ? null : duration == null ? LoadSettings.DEFAULT_DURATION : parseDuration(duration);
        return new LoadSettings(clients, retryRate, Duration.ofMillis(providerLatencyMs), (int) keys, stop,
                requests == null ? 0 : requests, seed);
    }

    /** {@code 500ms}, {@code 20s}, {@code 1m}: from 100 ms to one hour. */
    static Duration parseDuration(String text) {
        Matcher matcher = DURATION.matcher(text.trim());
        Duration parsed = null;
        if (matcher.matches()) {
            long amount = Long.parseLong(matcher.group(1));
            parsed = switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                default -> Duration.ofMinutes(amount);
            };
        }
        if (parsed == null || parsed.toMillis() < 100 || parsed.compareTo(Duration.ofHours(1)) > 0) {
            throw new UsageException("--duration must be a time from 100ms to 1h written like 500ms, 20s or 1m, got '"
                    + text + "'");
        }
        return parsed;
    }

    private List<String> stores() {
        if (compare == null) {
            return List.of(store.validatedStore());
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--store")) {
            throw new UsageException("--store and --compare both name the stores: give one, not both");
        }
        for (String name : compare) {
            if (!StoreBackends.NAMES.contains(name)) {
                throw new UsageException("--compare must name stores among " + String.join(", ", StoreBackends.NAMES)
                        + ", got '" + name + "'");
            }
        }
        return List.copyOf(new LinkedHashSet<>(compare));
    }

    private void writeResults(LoadComparison comparison, PrintWriter stdout) throws IOException {
        Files.createDirectories(results);
        List<Path> written = new ArrayList<>();
        written.add(write(results.resolve("load.json"), LoadReport.render(ReportFormat.JSON, comparison)));
        written.add(write(results.resolve("load.csv"), LoadReport.csv(comparison)));
        written.add(write(results.resolve("load.md"), LoadReport.render(ReportFormat.MARKDOWN, comparison)));
        written.addAll(LoadCharts.write(comparison, results));
        written.forEach(path -> stdout.println("wrote " + path));
        stdout.flush();
    }

    private static Path write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    /** A progress line on a terminal; nothing when the output is piped. */
    private LoadProgress progress() {
        if (System.console() == null) {
            return LoadProgress.NONE;
        }
        PrintWriter err = spec.commandLine().getErr();
        return new LoadProgress() {
            @Override
            public void update(String line) {
                err.print("\rlab: load " + line + "   ");
                err.flush();
            }

            @Override
            public void finished(String line) {
                err.println("\rlab: load " + line + "          ");
                err.flush();
            }
        };
    }
}
