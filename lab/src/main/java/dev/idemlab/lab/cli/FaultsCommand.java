package dev.idemlab.lab.cli;

import dev.idemlab.lab.faults.FaultCatalogue;
import dev.idemlab.lab.faults.FaultRow;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.report.ReportFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code lab faults}: the fault catalogue, each fault injected for real and read off the ledger. */
@Command(name = "faults", mixinStandardHelpOptions = true,
        description = "Runs the fault catalogue: each fault injected for real (paused servers, held locks, "
                + "terminated backends, corrupted records, interrupted and paused holders) on every store it "
                + "applies to, and each invariant checked against the provider's ledger. Exits 1 if any holds not.")
final class FaultsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--stores", paramLabel = "STORE[,STORE...]", split = ",", hideParamSyntax = true,
            description = "Stores to run on, comma-separated: memory, redis, postgres (the cluster has no case here; its "
                    + "faults are the nemesis's). Default: all three.")
    List<String> stores;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table (a line per row) or markdown (the results page's table). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Mixin
    ServerOptions servers;

    @Override
    public Integer call() {
        List<String> catalogued = FaultCatalogue.stores();
        List<String> chosen = stores == null ? catalogued
                : stores.stream().map(name -> name.trim().toLowerCase(Locale.ROOT)).distinct().toList();
        for (String store : chosen) {
            if (!StoreBackends.NAMES.contains(store)) {
                throw new UsageException("--stores: unknown store '" + store + "'; known: "
                        + String.join(", ", StoreBackends.NAMES));
            }
            if (!catalogued.contains(store)) {
                // A gate that ran nothing must not pass: 0 rows is not 0 violations.
                throw new UsageException("--stores: the fault catalogue has no case for " + store + " (its faults are "
                        + "played by lab nemesis --store " + store + "); it runs on " + String.join(", ", catalogued));
            }
        }
        String form = format.toLowerCase(Locale.ROOT);
        if (!form.equals("table") && !form.equals("markdown")) {
            throw new UsageException("--format must be table or markdown, got '" + format + "'");
        }
        ReportFile file = null;
        if (out != null) {
            try {
                file = ReportFile.check(out);
            } catch (ReportFile.Refused refused) {
                throw new UsageException("--out " + out + ": " + refused.getMessage());
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        Progress progress = new Progress(err, Progress.onTerminal(), FaultCatalogue.steps(chosen));
        List<FaultRow> rows;
        List<String> used = new java.util.ArrayList<>();
        try {
            rows = FaultCatalogue.run(chosen, servers.provisioning(chosen), (step, row) -> {
                if (row == null) {
                    progress.started(step);
                } else {
                    progress.finished(step, row.verdict().word());
                }
            }, used);
        } finally {
            progress.close();
        }
        String header = "servers: " + String.join("; ", used) + System.lineSeparator() + System.lineSeparator();
        String report = header + (form.equals("markdown") ? FaultCatalogue.markdown(rows) : FaultCatalogue.table(rows));
        PrintWriter stdout = spec.commandLine().getOut();
        if (file == null) {
            stdout.print(report);
        } else {
            try {
                file.write(report);
            } catch (Exception e) {
                throw new CommandFailure("--out " + out + ": the report could not be written: " + e.getMessage());
            }
            stdout.println("wrote " + form + " report to " + out);
        }
        stdout.flush();
        return rows.stream().anyMatch(row -> row.verdict() == FaultRow.Verdict.VIOLATED) ? 1 : 0;
    }
}
