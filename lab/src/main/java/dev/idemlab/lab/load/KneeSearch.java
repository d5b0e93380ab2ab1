package dev.idemlab.lab.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Finds a driver's knee: the highest arrival rate at which one bounded open-loop run keeps its p99
 * under a bound with no duplicate charge and no response the ledger contradicts. A geometric ramp
 * from the start rate (doubling while a step passes, halving while it fails) brackets the knee
 * between a passing and a failing rate; a bisection on a log scale then narrows the bracket until its
 * ends are within the precision of each other. A rate fails only when a second run at it fails too: one
 * pause of a machine shared with other work (a collection, another process) can push a short run's p99
 * past the bound, and a knee set by one such run would be noise. Every run is a step, so the number is
 * bounded; a search that runs out of steps, or passes at the highest rate it may try, says so
 * instead of inventing a bracket.
 *
 * <p>The search only decides which rate to try next: the runs are a {@link Probe}'s, so the logic is
 * tested with a fake one. Not thread-safe; one search at a time.
 */
public final class KneeSearch {

    /** Runs one bounded load at an arrival rate and says what it measured. */
    @FunctionalInterface
    public interface Probe {
        /**
         * @param rate logical requests per second
         * @throws InterruptedException if interrupted while the load runs
         */
        Measured measure(long rate) throws InterruptedException;
    }

    /**
     * What one run at one rate measured.
     *
     * @param throughput answers per second, duplicates included
     * @param p99Ms the 99th percentile latency, from each request's intended start
     * @param duplicateCharges charges beyond one per key, read from the provider's ledger
     * @param disagreements responses the ledger contradicts
     */
    public record Measured(double throughput, double p99Ms, long duplicateCharges, long disagreements) {

        /** What a run measured, read from its report. */
        public static Measured of(LoadRun run) {
            return new Measured(run.throughput(), run.latency().p99(), run.check().duplicateCharges(),
                    run.check().disagreements());
        }
    }

    private final KneeSettings settings;
    private final Consumer<KneeStep> onStep;

    /**
     * @param settings where to start, how far to go, the p99 bound, how many steps
     * @param onStep told of every step as it ends (a progress line per step)
     */
    public KneeSearch(KneeSettings settings, Consumer<KneeStep> onStep) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.onStep = Objects.requireNonNull(onStep, "onStep");
    }

    /**
     * Searches with {@code probe}.
     *
     * @throws InterruptedException if a run is interrupted
     */
    public Knee search(Probe probe) throws InterruptedException {
        List<KneeStep> steps = new ArrayList<>();
        long passing = 0;
        long failing = 0;
        long rate = settings.startRate();
        // The ramp: double while passing, halve while failing, until a pass and a fail bracket the knee.
        while (steps.size() < settings.maxSteps()) {
            KneeStep step = run(probe, rate, steps);
            if (step.passed()) {
                passing = rate;
                if (failing > 0 || rate >= settings.maxRate()) {
                    break;
                }
                rate = Math.min(settings.maxRate(), rate * 2);
            } else {
                failing = rate;
                if (passing > 0 || rate <= 1) {
                    break;
                }
                rate = Math.max(1, rate / 2);
            }
        }
        // The bisection, on a log scale: the knee of a queue is nearer a ratio than a difference.
        while (passing > 0 && failing > 0 && steps.size() < settings.maxSteps()
                && failing > passing * (1 + settings.precision())) {
            long middle = Math.round(Math.sqrt((double) passing * failing));
            if (middle <= passing || middle >= failing) {
                break;
            }
            if (run(probe, middle, steps).passed()) {
                passing = middle;
            } else {
                failing = middle;
            }
        }
        return new Knee(passing, failing, steps);
    }

    /** One rate: a run, and a second one if the first failed and steps are left; the last one decides. */
    private KneeStep run(Probe probe, long rate, List<KneeStep> steps) throws InterruptedException {
        KneeStep step = once(probe, rate, steps);
        if (!step.passed() && steps.size() < settings.maxSteps()) {
            step = once(probe, rate, steps);
        }
        return step;
    }

    private KneeStep once(Probe probe, long rate, List<KneeStep> steps) throws InterruptedException {
        Measured measured = probe.measure(rate);
        KneeStep step = new KneeStep(steps.size() + 1, rate, measured, settings.p99BoundMs());
        steps.add(step);
        onStep.accept(step);
        return step;
    }
}
