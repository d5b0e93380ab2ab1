package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.peers.CrashedWorkerRunner;
import dev.idemlab.lab.peers.CrashedWorkerTable;
import dev.idemlab.lab.peers.DbosOrders;
import dev.idemlab.lab.report.CrashedWorkerReport;
import dev.idemlab.lab.report.ReportFormat;
import dev.idemlab.lab.scenario.OrderScenario;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lab peers crashed-worker}: the order workflow on DBOS Transact with its worker in a child JVM
 * killed at each step boundary and recovered by DBOS, beside this project's crash-mid-order modes killed
 * at the same boundaries; every cell read back from the orders table and the ledgers. Reported, not gated.
 */
@Command(name = "crashed-worker", mixinStandardHelpOptions = true,
        description = {"Places an order (a row, a charge, the row marked paid, a receipt) as a DBOS Transact workflow "
                + "whose worker runs in a child JVM and is killed with SIGKILL right after a step's effect: after the "
                + "commit of a transactional step (rows and checkpoint together), after the provider answered for a "
                + "remote one (before DBOS recorded it). A second executor with the same executor id then launches, "
                + "DBOS's own recovery resumes the workflow, and the client retries with the same workflow id. "
                + "With and without a downstream key on the remote steps (the provider deduplicates on one).",
                "Then, at each --pause-at boundary, the worker is stopped with SIGSTOP instead while the other "
                + "executor recovers and finishes, and continued: does its step still land? Beside them, this project's crash-mid-order "
                + "modes at the same boundaries. On the lab's PostgreSQL (bundled, or --pg-url); no child JVM is "
                + "left running."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every cell ran (whatever it showed)", "1:a cell could not run, or no PostgreSQL could be had",
                "2:usage error"})
final class PeersCrashedWorkerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--at", paramLabel = "PHASE", defaultValue = "each",
            description = "The step boundary: order_created, charge_created, order_paid, receipt_sent, or each. "
                    + "Default: ${DEFAULT-VALUE}.")
    String at;

    @Option(names = "--downstream-key", paramLabel = "off|on|both", defaultValue = "both",
            description = "Whether DBOS's remote steps pass a key of their own to the provider. Default: ${DEFAULT-VALUE}.")
    String downstreamKey;

    @Option(names = "--pause-at", paramLabel = "PHASE[,PHASE...]|none", split = ",",
            defaultValue = "order_created,charge_created",
            description = "Where the SIGSTOP runs pause the worker, or none. Default: ${DEFAULT-VALUE}.")
    List<String> pauseAt;

    @Option(names = "--beside", paramLabel = "MODE[,MODE...]|none", split = ",",
            defaultValue = "result-cache,reservation,downstream-key,transactional,workflow",
            description = "This project's crash-mid-order modes to run at the same boundaries, or none. "
                    + "Default: ${DEFAULT-VALUE}.")
    List<String> beside;

    @Mixin
    PostgresOptions postgresServer;


    @Mixin
    OutputOptions output;

    @Option(names = "--results", paramLabel = "DIR",
            description = "Also write the same run as crashed-worker.txt, crashed-worker.json and crashed-worker.md into DIR.")
    Path results;

    @Override
    public Integer call() throws InterruptedException {
        CrashedWorkerRunner.Plan plan = plan();
        postgresServer.check();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter progress = System.console() != null ? err : null;
        CrashedWorkerTable table;
        try (PostgresBackend postgres = PostgresBackend.open(new ProvisioningOptions(null, null, postgresServer.pgUrl, postgresServer.pgFrom))) {
            say(progress, "using " + postgres.server().describe());
            table = new CrashedWorkerRunner(postgres, line -> say(progress, "running " + line)).run(plan);
            postgres.cleanUp().ifPresent(err::println);
        }
        output.emit(CrashedWorkerReport.render(output.format, table), spec.commandLine().getOut());
        if (results != null) {
            writeResults(table);
        }
        table.failures().forEach(failure -> err.println("lab: not run: " + failure));
        err.flush();
        return table.failures().isEmpty() ? 0 : 1;
    }

    private CrashedWorkerRunner.Plan plan() {
        List<String> phases = at.equals("each") ? DbosOrders.PHASES : List.of(phase("--at", at));
        List<Boolean> keys = switch (downstreamKey) {
            case "off" -> List.of(false);
            case "on" -> List.of(true);
            case "both" -> List.of(false, true);
            default -> throw new UsageException("--downstream-key must be off, on or both, not " + downstreamKey);
        };
        List<String> pauses = new ArrayList<>();
        if (!(pauseAt.size() == 1 && pauseAt.get(0).equals("none"))) {
            pauseAt.forEach(phase -> pauses.add(phase("--pause-at", phase)));
        }
        List<String> modes = new ArrayList<>();
        List<String> known = OrderScenario.modes(OrderScenario.Fault.CRASH);
        if (!(beside.size() == 1 && beside.get(0).equals("none"))) {
            for (String mode : beside) {
                String name = mode.toUpperCase(Locale.ROOT).replace('-', '_');
                if (!known.contains(name)) {
                    throw new UsageException("--beside must name modes among " + String.join(", ", known.stream()
                            .map(m -> m.toLowerCase(Locale.ROOT).replace('_', '-')).toList()) + ", or none; got '"
                            + mode + "'");
                }
                modes.add(name);
            }
        }
        return new CrashedWorkerRunner.Plan(phases, keys, pauses, modes);
    }

    private static String phase(String option, String value) {
        if (!DbosOrders.PHASES.contains(value)) {
            throw new UsageException(option + " must be one of " + String.join(", ", DbosOrders.PHASES)
                    + (option.equals("--at") ? " or each" : " or none") + ", not " + value);
        }
        return value;
    }

    /** Every format of the one run, so that published pages never mix two runs. */
    private void writeResults(CrashedWorkerTable table) {
        try {
            Files.createDirectories(results);
            for (ReportFormat format : ReportFormat.values()) {
                String name = "crashed-worker." + (format == ReportFormat.TABLE ? "txt"
                        : format == ReportFormat.JSON ? "json" : "md");
                Files.writeString(results.resolve(name), CrashedWorkerReport.render(format, table), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UsageException("cannot write --results " + results + ": " + e.getMessage());
        }
        spec.commandLine().getOut().println("wrote crashed-worker.txt, crashed-worker.json and crashed-worker.md to "
                + results);
    }

    private static void say(PrintWriter progress, String line) {
        if (progress != null) {
            progress.println("lab: " + line + " ...");
            progress.flush();
        }
    }
}
