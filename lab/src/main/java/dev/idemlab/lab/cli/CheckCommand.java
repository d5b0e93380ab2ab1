package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.ProvisioningException;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.scenario.CheckResult;
import dev.idemlab.lab.scenario.Expectations;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioSettings;
import dev.idemlab.lab.scenario.Scenarios;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lab check}: the regression gate. Runs every scenario on every store it can provision and
 * fails when a policy that promises exactly-once charged more than once, when the run policy did
 * not double-charge (the race was not reproduced), or when any outcome differs from the post's.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Runs every scenario on every store and compares each run with the post, against the "
                + "provider's ledger. Prints one line per check; exits 1 if any check failed.")
final class CheckCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--stores", paramLabel = "STORE[,STORE...]", split = ",",
            description = "Stores to check. Default: all of ${COMPLETION-CANDIDATES}.",
            completionCandidates = StoreBackends.Names.class)
    List<String> stores;

    @Mixin
    StoreOptions provisioning;

    @Override
    public Integer call() throws InterruptedException {
        List<String> names = stores == null ? StoreBackends.NAMES : stores;
        for (String name : names) {
            if (!StoreBackends.NAMES.contains(name)) {
                throw new UsageException("--stores must name stores among " + String.join(", ", StoreBackends.NAMES)
                        + ", got '" + name + "'");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        List<CheckResult> results = new ArrayList<>();
        for (String name : names) {
            results.addAll(checkStore(name, out));
        }
        long failed = results.stream().filter(r -> !r.passed()).count();
        out.println();
        out.println("check: " + (results.size() - failed) + " passed, " + failed + " failed");
        out.flush();
        return failed == 0 ? 0 : 1;
    }

    private List<CheckResult> checkStore(String name, PrintWriter out) throws InterruptedException {
        StoreBackend backend;
        try {
            backend = StoreBackends.open(name, provisioning.provisioning());
        } catch (ProvisioningException unavailable) {
            out.println("SKIP " + name + ": no server available: " + unavailable.getMessage());
            out.flush();
            return List.of();
        }
        List<CheckResult> results = new ArrayList<>();
        try (backend) {
            out.println("store " + backend.server().describe());
            out.flush();
            ScenarioContext context = new ScenarioContext(backend, ScenarioSettings.defaults(),
                    ((LabCommand) spec.root().userObject()).coordinators());
            ScenarioRunner runner = new ScenarioRunner(context, spec.commandLine().getErr());
            List<ScenarioRunner.Plan> plans = Scenarios.ALL.stream()
                    .map(s -> new ScenarioRunner.Plan(s, s.policiesForAll())).toList();
            List<ScenarioRunner.Skipped> skipped = runner.run(plans, run -> {
                CheckResult result = Expectations.check(run);
                results.add(result);
                out.println(result.line());
                out.flush();
            });
            for (ScenarioRunner.Skipped skip : skipped) {
                out.println("SKIP " + name + " " + skip.scenario() + ": " + skip.reason());
            }
        }
        return results;
    }
}
