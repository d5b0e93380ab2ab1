package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CannotStageException;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs scenarios one policy at a time on one backend, reports progress, and collects the runs and
 * the ones it had to skip.
 */
final class ScenarioRunner {

    /** One scenario under the policies to run it with. */
    record Plan(Scenario scenario, List<LabPolicy> policies) { }

    /** A scenario this store cannot stage, and why. */
    record Skipped(String scenario, String reason) { }

    private final ScenarioContext context;
    private final PrintWriter err;
    private final Progress progress;

    /**
     * @param progress where steps are reported, or {@code null} for a short run that reports nothing
     *     when no terminal is watching
     */
    ScenarioRunner(ScenarioContext context, PrintWriter err, Progress progress) {
        this.context = context;
        this.err = err;
        this.progress = progress;
    }

    /**
     * The skipped scenarios, each with how many of its variants were skipped: a scenario skipped in several
     * variants (fail open and closed, say) is skipped for one reason, to be said once.
     */
    static Map<Skipped, Integer> countVariants(List<Skipped> skipped) {
        Map<Skipped, Integer> variants = new LinkedHashMap<>();
        skipped.forEach(skip -> variants.merge(skip, 1, Integer::sum));
        return variants;
    }

    /** How many steps (scenario under one policy) {@code plans} make. */
    static int steps(List<Plan> plans) {
        return plans.stream().mapToInt(plan -> plan.policies().size()).sum();
    }

    /**
     * Runs every plan, handing each run to {@code onRun} as it finishes; {@code onRun} answers the
     * step's one-word outcome for the progress line. Returns the skipped ones.
     */
    List<Skipped> run(List<Plan> plans, Function<ScenarioRun, String> onRun) throws InterruptedException {
        return run(plans, onRun, null);
    }

    /**
     * As {@link #run(List, Function)}; a step that throws (anything but a scenario this store cannot stage)
     * is handed to {@code onError} with its step's name, which answers the step's one-word outcome, and the
     * next step runs: the gate reports a row it could not run and goes on with the others. {@code null}
     * lets the exception end the run.
     */
    List<Skipped> run(List<Plan> plans, Function<ScenarioRun, String> onRun,
                      java.util.function.BiFunction<String, RuntimeException, String> onError) throws InterruptedException {
        StoreBackend backend = context.backend();
        List<Skipped> skipped = new ArrayList<>();
        for (Plan plan : plans) {
            List<LabPolicy> policies = plan.policies();
            for (int i = 0; i < policies.size(); i++) {
                String step = plan.scenario().name() + "/" + policies.get(i).name().toLowerCase(Locale.ROOT)
                        + " on " + backend.name();
                started(step);
                ScenarioRun run;
                try {
                    run = plan.scenario().run(context, policies.get(i));
                } catch (CannotStageException cannotStage) {
                    skipped.add(new Skipped(plan.scenario().name(), cannotStage.getMessage()));
                    for (int rest = i; rest < policies.size(); rest++) {
                        finished(plan.scenario().name() + "/" + policies.get(rest).name().toLowerCase(Locale.ROOT)
                                + " on " + backend.name(), "skipped");
                    }
                    break;
                } catch (RuntimeException failed) {
                    if (onError == null) {
                        throw failed;
                    }
                    finished(step, onError.apply(plan.scenario().name() + "/" + policies.get(i).name().toLowerCase(Locale.ROOT),
                            failed));
                    continue;
                }
                finished(step, onRun.apply(run));
            }
        }
        return skipped;
    }

    /** A line for a person at a terminal; nothing when the output is piped. */
    void say(String line) {
        if (Progress.onTerminal()) {
            if (progress != null) {
                progress.note(line);
            } else {
                err.println("lab: " + line + " ...");
                err.flush();
            }
        }
    }

    private void started(String step) {
        if (progress != null) {
            progress.started(step);
        } else {
            say("running " + step);
        }
    }

    private void finished(String step, String outcome) {
        if (progress != null) {
            progress.finished(step, outcome);
        }
    }
}
