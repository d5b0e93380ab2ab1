package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs scenarios one policy at a time on one backend, says what it is doing when a person is
 * watching, and collects the runs and the ones it had to skip.
 */
final class ScenarioRunner {

    /** One scenario under the policies to run it with. */
    record Plan(Scenario scenario, List<LabPolicy> policies) { }

    /** A scenario this store cannot stage, and why. */
    record Skipped(String scenario, String reason) { }

    private final ScenarioContext context;
    private final PrintWriter progress;

    ScenarioRunner(ScenarioContext context, PrintWriter err) {
        this.context = context;
        // Progress goes to the terminal only: piped output stays exactly the report.
        this.progress = System.console() != null ? err : null;
    }

    /** Runs every plan, handing each run to {@code onRun} as it finishes; returns the skipped ones. */
    List<Skipped> run(List<Plan> plans, Consumer<ScenarioRun> onRun) throws InterruptedException {
        StoreBackend backend = context.backend();
        List<Skipped> skipped = new ArrayList<>();
        for (Plan plan : plans) {
            for (LabPolicy policy : plan.policies()) {
                say("running " + plan.scenario().name() + " under " + policy.name().toLowerCase() + " on " + backend.name());
                try {
                    onRun.accept(plan.scenario().run(context, policy));
                } catch (UnsupportedOperationException cannotStage) {
                    skipped.add(new Skipped(plan.scenario().name(), cannotStage.getMessage()));
                    break;
                }
            }
        }
        return skipped;
    }

    void say(String line) {
        if (progress != null) {
            progress.println("lab: " + line + " ...");
            progress.flush();
        }
    }
}
