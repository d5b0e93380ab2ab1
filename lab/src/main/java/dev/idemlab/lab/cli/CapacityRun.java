package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.FilterCost;
import dev.idemlab.lab.load.FilterCostRow;
import dev.idemlab.lab.load.Knee;
import dev.idemlab.lab.load.KneeSearch;
import dev.idemlab.lab.load.KneeSettings;
import dev.idemlab.lab.load.LoadGenerator;
import dev.idemlab.lab.load.LoadProgress;
import dev.idemlab.lab.load.LoadRun;
import dev.idemlab.lab.load.LoadSettings;
import dev.idemlab.lab.load.SampleCost;
import dev.idemlab.lab.load.SampleCostRow;
import dev.idemlab.lab.load.StoreKnees;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.report.FilterCostReport;
import dev.idemlab.lab.report.KneeReport;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the capacity modes of {@code lab load} ({@link CapacityOptions}) on the stores the load was
 * given, one store at a time, each server provisioned and stopped as in a plain load, and prints the
 * Markdown report. Exits 1 when a target was missed or a run was not clean; the figures are still
 * reported. Not thread-safe.
 */
final class CapacityRun {

    /** How long each step or run lasts when no --duration is given: long enough for a p99. */
    static final Duration DEFAULT_STEP = Duration.ofSeconds(5);
    /** Where a knee search starts when no --rate is given. */
    static final long DEFAULT_START_RATE = 500;

    private final List<String> stores;
    private final ProvisioningOptions provisioning;
    private final PrintWriter err;

    CapacityRun(List<String> stores, ProvisioningOptions provisioning, PrintWriter err) {
        this.stores = stores;
        this.provisioning = provisioning;
        this.err = err;
    }

    /**
     * Each store's knee through the coordinator under {@code policy}, then driven raw.
     *
     * @param settings the load's shape, closed-loop, stopping after the step's duration
     * @return the report, and whether every store with a target met it
     */
    Report findKnees(LoadSettings settings, LabPolicy policy, KneeSettings knee, CoordinatorFactory coordinators)
            throws InterruptedException {
        LoadProgress progress = LoadProgress.NONE;
        List<StoreKnees> rows = new ArrayList<>();
        for (String name : stores) {
            try (StoreBackend backend = StoreBackends.open(name, provisioning)) {
                try {
                    Knee through = search(knee, name + " through the coordinator", rate ->
                            new LoadGenerator(settings.withRate(rate), coordinators, progress).run(backend, policy));
                    Knee raw = search(knee, name + " raw", rate ->
                            new LoadGenerator(settings.withRate(rate), coordinators, progress).runRaw(backend));
                    rows.add(new StoreKnees(backend.server(), through, raw));
                } finally {
                    StoreOptions.cleanUp(backend, err);
                }
            }
        }
        String settingsLine = String.format(Locale.ROOT, "knee: the highest open-loop arrival rate with p99 under "
                        + "%.0f ms and no duplicate charge in the ledger (a rate fails when two runs at it fail); policy %s, at most %d in flight, %.0f%% "
                        + "concurrent retries, provider %d ms per charge, %s per step, ramp from %,d/s, bisection to "
                        + "within %.0f%%, at most %d steps per driver", knee.p99BoundMs(),
                policy.name().toLowerCase(Locale.ROOT), settings.clients(), settings.retryRate() * 100,
                settings.providerLatency().toMillis(), human(settings.duration()), knee.startRate(),
                knee.precision() * 100, knee.maxSteps());
        boolean met = rows.stream().noneMatch(row -> row.verdict().equals("missed"));
        return new Report(KneeReport.markdown(settingsLine, rows), met);
    }

    /**
     * Every kind of request on every store, through the filter, with the store's raw writes by hand and
     * bare, each server in a JVM of its own.
     *
     * @param flightRecordings where each server JVM writes its flight recording, or {@code null} for none
     * @param measuredSamples the Spring Boot samples also measured with and without the library
     */
    Report filterCost(LoadSettings settings, java.nio.file.Path flightRecordings, List<SampleCost.Sample> measuredSamples)
            throws InterruptedException {
        FilterCost cost = new FilterCost(settings, lineProgress(), flightRecordings);
        SampleCost samples = new SampleCost(settings, lineProgress(), measuredSamples);
        List<FilterCostRow> rows = new ArrayList<>();
        List<SampleCostRow> sampleRows = new ArrayList<>();
        List<String> servers = new ArrayList<>();
        double loadBefore = loadAverage();
        for (String name : stores) {
            try (StoreBackend backend = StoreBackends.open(name, provisioning)) {
                try {
                    servers.add(name.equals("memory") ? "memory: the in-memory store inside each server's JVM"
                            : backend.server().describeWithDurability());
                    rows.addAll(cost.run(backend));
                    sampleRows.addAll(samples.run(backend));
                } finally {
                    StoreOptions.cleanUp(backend, err);
                }
            }
        }
        String settingsLine = String.format(Locale.ROOT, "filter cost: %d closed-loop clients over HTTP/1.1 (JDK "
                        + "HttpClient) in the lab's JVM, each server (the demo payment API on Jetty) in a JVM of "
                        + "its own (%s), started fresh per run and warmed up (%s of first calls, then as long of the measured kind); provider %d ms per charge, %s per run, "
                        + "policy raise (409 while in flight); %d keys primed for replays and conflicts. Server CPU "
                        + "is the server JVM's CPU time over the run (every thread: JIT and GC too) divided by "
                        + "the requests answered. %d cores; load average (1 min) %.2f before the first run, %.2f "
                        + "after the last", settings.clients(), FilterCost.SERVER_HEAP,
                human(FilterCost.WARM_UP), settings.providerLatency().toMillis(), human(settings.duration()), FilterCost.PRIMED_KEYS,
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage());
        boolean met = rows.stream().allMatch(row -> row.clean() && !row.verdict().equals("missed"));
        return new Report(FilterCostReport.markdown(settingsLine, servers, rows)
                + FilterCostReport.samples(sampleRows, samples.notes())
                + FilterCostReport.profiles(cost.profiles()), met);
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** One bounded load at a rate. */
    @FunctionalInterface
    private interface RunAt {
        LoadRun run(long rate) throws InterruptedException;
    }

    private Knee search(KneeSettings knee, String label, RunAt probe) throws InterruptedException {
        err.println("lab: knee " + label + ": searching from " + String.format(Locale.ROOT, "%,d/s", knee.startRate()));
        err.flush();
        Knee found = new KneeSearch(knee, step -> {
            err.println("lab: knee " + label + " step " + step.number() + ": " + step.describe());
            err.flush();
        }).search(rate -> KneeSearch.Measured.of(probe.run(rate)));
        err.println("lab: knee " + label + ": " + found.describe());
        err.flush();
        return found;
    }

    private LoadProgress lineProgress() {
        return new LoadProgress() {
            @Override
            public void update(String line) { }

            @Override
            public void finished(String line) {
                err.println("lab: filter cost " + line);
                err.flush();
            }
        };
    }

    private static String human(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /** A rendered report and whether it met its targets. */
    record Report(String markdown, boolean met) { }
}
