package dev.idemlab.lab.cli;

import dev.idemlab.lab.load.KneeSettings;
import dev.idemlab.lab.load.SampleCost;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The capacity modes of {@code lab load}: {@code --find-knee} (each store's knee through the
 * coordinator beside the same store driven raw) and {@code --filter-cost} (the HTTP filter against the
 * same handler without it), with the rules on which of the load's options each takes.
 */
final class CapacityOptions {

    static final int MAX_KNEE_STEPS = 50;
    static final int MAX_KNEE_P99_MS = 10_000;

    @Option(names = "--find-knee",
            description = "Find each store's knee: the highest open-loop arrival rate whose run keeps p99 under "
                    + "--knee-p99-ms with no duplicate charge in the provider's ledger, through the coordinator and "
                    + "for the same store driven raw (its first call's writes by hand, same arrivals, clients, "
                    + "provider and recorder). Ramps from --rate (default 500) doubling or halving, then bisects to "
                    + "within 10%%; each step runs --duration (default 5s) and prints a line, and a rate fails only "
                    + "when a second run at it fails too. Reports the knees, "
                    + "their ratio and its target (0.5x on redis and postgres), as Markdown. Policy wait unless "
                    + "--policy raise.")
    boolean findKnee;

    @Option(names = "--knee-p99-ms", paramLabel = "MS",
            description = "With --find-knee: a step passes only with p99 under MS, 1 to " + MAX_KNEE_P99_MS
                    + ". Default: 50.")
    Long kneeP99Ms;

    @Option(names = "--knee-steps", paramLabel = "N",
            description = "With --find-knee: at most N runs per store and driver, 2 to " + MAX_KNEE_STEPS
                    + ". Default: 12.")
    Integer kneeSteps;

    @Option(names = "--filter-cost",
            description = "Measure the Idempotency-Key filter over HTTP: the demo payment API (lab serve) with the "
                    + "filter, the same handler doing the store's raw writes by hand around the charge (the floor), "
                    + "and the handler bare, each server in a JVM of its own, closed-loop --clients "
                    + "for --duration (default 5s) each, per store and kind of request: first calls, replays, "
                    + "in-flight conflicts (409). Reports req/s, p50 and p99 and the server JVM's CPU per request "
                    + "of the three, and the targets (redis and postgres: filtered at least 0.85x raw-writes for "
                    + "first calls and 0.9x for replays; memory: at most 50 µs of CPU per request over bare), as "
                    + "Markdown.")
    boolean filterCost;

    @Option(names = "--flight-recordings", paramLabel = "DIR",
            description = "With --filter-cost: each server JVM writes a flight recording (profile settings) of its "
                    + "life to DIR, named STORE-KIND-HANDLER.jfr, and the report adds where each measured run's CPU "
                    + "samples and allocations went, by part of the request (header, fingerprint, capture, "
                    + "encoding, store, logging, metrics, handler, Jetty).")
    java.nio.file.Path flightRecordings;

    @Option(names = "--samples", paramLabel = "LIST",
            description = "With --filter-cost: the Spring Boot samples also measured, each with its library on and "
                    + "off by one property, on the stores they run on: servlet (its @Idempotent charge, on memory, "
                    + "redis and postgres), webflux (its WebFlux filter, on memory), comma-separated, or none. "
                    + "Their jars come from the build. Default: servlet,webflux.")
    String samples;

    /**
     * The samples {@code --samples} names, both by default.
     *
     * @throws UsageException naming the rule the list breaks
     */
    List<SampleCost.Sample> samples() {
        if (samples == null) {
            return List.of(SampleCost.Sample.values());
        }
        if (samples.strip().equals("none")) {
            return List.of();
        }
        java.util.Set<SampleCost.Sample> named = new java.util.LinkedHashSet<>();
        for (String name : samples.split(",", -1)) {
            named.add(switch (name.strip()) {
                case "servlet" -> SampleCost.Sample.SERVLET;
                case "webflux" -> SampleCost.Sample.WEBFLUX;
                default -> throw new UsageException("--samples takes servlet, webflux (comma-separated) or none, got '"
                        + name.strip() + "'");
            });
        }
        return List.copyOf(named);
    }

    /** Whether a capacity mode was asked for. */
    boolean requested() {
        return findKnee || filterCost;
    }

    /**
     * The knee search's settings from a start rate.
     *
     * @throws UsageException naming the rule a value breaks
     */
    KneeSettings kneeSettings(long startRate, long maxRate) {
        long bound = kneeP99Ms == null ? (long) KneeSettings.DEFAULT_P99_BOUND_MS
                : Bounds.check("--knee-p99-ms", kneeP99Ms, 1, MAX_KNEE_P99_MS);
        int steps = kneeSteps == null ? 12 : (int) Bounds.check("--knee-steps", kneeSteps, 2, MAX_KNEE_STEPS);
        return new KneeSettings(startRate, maxRate, bound, KneeSettings.DEFAULT_PRECISION, steps);
    }

    /**
     * Refuses the options a capacity mode does not take, and the knee's options without it.
     *
     * @throws UsageException naming the rule a combination breaks
     */
    void validate(CommandSpec spec) {
        if (findKnee && filterCost) {
            throw new UsageException("--find-knee and --filter-cost are two runs: give one, not both");
        }
        if (!filterCost && flightRecordings != null) {
            throw new UsageException("--flight-recordings records the servers of --filter-cost: use it with --filter-cost");
        }
        if (!filterCost && samples != null) {
            throw new UsageException("--samples picks the samples --filter-cost measures: use it with --filter-cost");
        }
        samples();
        if (!findKnee && (kneeP99Ms != null || kneeSteps != null)) {
            throw new UsageException("--knee-p99-ms and --knee-steps shape the knee search: use them with --find-knee");
        }
        if (!requested()) {
            return;
        }
        String mode = findKnee ? "--find-knee" : "--filter-cost";
        List<String> refused = findKnee
                ? List.of("--requests", "--library", "--transport", "--workers", "--stall", "--downstream-key",
                        "--store-patience-ms", "--results")
                : List.of("--requests", "--rate", "--library", "--transport", "--workers", "--stall",
                        "--downstream-key", "--store-patience-ms", "--results", "--retry-rate", "--policy", "--keys");
        for (String option : refused) {
            if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                throw new UsageException(mode + " does not take " + option + ": " + (findKnee
                        ? "each step runs in process for --duration at one rate, and the report is Markdown on "
                                + "standard output or --out"
                        : "each run sends one kind of request over HTTP from closed-loop clients for --duration, "
                                + "under raise, and the report is Markdown on standard output or --out"));
            }
        }
    }
}
