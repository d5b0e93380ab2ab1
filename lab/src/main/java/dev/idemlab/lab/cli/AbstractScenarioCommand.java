package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.report.ReportFormat;
import dev.idemlab.lab.scenario.ProviderChoice;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.ScenarioSettings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What every {@code lab scenario ...} command does: check the options, provision the store, run
 * the plan, render the report and say where it went. Subclasses only say which scenarios to run.
 */
abstract class AbstractScenarioCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioOptions options;

    /** The scenarios and policies to run. */
    abstract List<ScenarioRunner.Plan> plan();

    /** The race's options, for commands that run the in-flight race; {@code null} otherwise. */
    RaceOptions race() {
        return null;
    }

    /** Refuses a store that cannot stage this command's scenario at all. */
    void checkStore(String store) { }

    @Override
    public Integer call() throws InterruptedException {
        ScenarioSettings settings = options.settings(race());
        ProviderChoice providerChoice = options.provider.choice();
        String storeName = options.store.validatedStore();
        checkStore(storeName);
        PrintWriter out = spec.commandLine().getOut();
        try (StoreBackend backend = StoreBackends.open(storeName, options.store.provisioning())) {
            ScenarioContext context = new ScenarioContext(backend, settings,
                    ((LabCommand) spec.root().userObject()).coordinators(), providerChoice);
            ScenarioRunner runner = new ScenarioRunner(context, spec.commandLine().getErr());
            runner.say("using " + backend.server().describe());
            List<ScenarioRun> runs = new ArrayList<>();
            List<ScenarioRunner.Skipped> skipped = runner.run(plan(), runs::add);
            StringBuilder report = new StringBuilder(options.output.format.render(runs));
            for (ScenarioRunner.Skipped skip : skipped) {
                String line = skip.scenario() + " skipped on " + storeName + ": " + skip.reason();
                if (options.output.format == ReportFormat.JSON) {
                    spec.commandLine().getErr().println("lab: " + line);
                } else {
                    report.append('\n').append(line).append('\n');
                }
            }
            options.output.emit(report.toString(), out);
        }
        return 0;
    }
}
