package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.OrderScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario crash-mid-order}. */
@Command(name = "crash-mid-order", mixinStandardHelpOptions = true,
        description = "Places an order (a row in lab_orders in the store's PostgreSQL, a charge, the order marked "
                + "paid, a receipt) with its holder in a child JVM, kills the holder with SIGKILL at a step boundary "
                + "and retries with the same key. Read back from the orders table and the ledgers: a result cache and "
                + "a plain reservation leave two orders, the downstream key one charge but two orders, the record "
                + "committed with the order (transactional) and the workflow with recovery points one of each. "
                + "Then the workflow's policies for a charge of unknown outcome (its holder killed inside the step, "
                + "before or after the provider answered), at a provider that does not deduplicate: re-run charges "
                + "twice, ask first once, stop once and answers every retry 'unknown outcome at step "
                + "charge_created'. PostgreSQL only. No child JVM is left running.")
final class CrashMidOrderCommand extends OrderScenarioCommand {

    @Override
    OrderScenario.Fault fault() {
        return OrderScenario.Fault.CRASH;
    }
}

/** What both order scenarios take: the mode and the step boundary. */
abstract class OrderScenarioCommand extends FailureScenarioCommand {

    @Option(names = "--mode", paramLabel = "MODE",
            description = "How the order is protected: result-cache, reservation, downstream-key, transactional, "
                    + "workflow, workflow-rerun, workflow-ask-first, workflow-stop (crash only: the workflow's "
                    + "policies for a charge of unknown outcome), or all. Default: all the scenario shows, "
                    + "unmitigated first.")
    String mode = "all";

    @Option(names = "--at", paramLabel = "PHASE",
            description = "Where the holder is hit: order_created, charge_created, order_paid, receipt_sent "
                    + "(between steps), charge_started or charge_answered (inside the charge step, for the "
                    + "workflow-rerun, -ask-first and -stop modes; modes without it are left out), or each (every one "
                    + "of the mode's). Default: "
                    + "charge_created (crash), order_created (pause), charge_answered (the policies).")
    String at;

    abstract OrderScenario.Fault fault();

    /** Its orders live in the store's own PostgreSQL: that is its store unless another was named. */
    @Override
    String storeFor(String named) {
        return spec.commandLine().getParseResult().hasMatchedOption("--store") ? named : "postgres";
    }

    @Override
    void checkStore(String store) {
        if (!store.equals("postgres")) {
            throw new UsageException((fault() == OrderScenario.Fault.CRASH ? "crash-mid-order" : "stale-holder-order")
                    + " keeps its orders in the store's own PostgreSQL: use --store postgres (the default here)");
        }
    }

    @Override
    List<Scenario> variants() {
        List<String> modes = OrderScenario.modes(fault());
        List<String> chosen;
        if (mode.equals("all")) {
            chosen = modes;
        } else {
            String name = mode.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
            if (!modes.contains(name)) {
                throw new UsageException("--mode must be one of " + String.join(", ", modes.stream()
                        .map(m -> m.toLowerCase(java.util.Locale.ROOT).replace('_', '-')).toList()) + " or all, not " + mode);
            }
            chosen = List.of(name);
        }
        List<Scenario> variants = new java.util.ArrayList<>();
        for (String chosenMode : chosen) {
            List<String> own = OrderScenario.boundaries(chosenMode);
            if (at == null) {
                variants.add(new OrderScenario(fault(), chosenMode, OrderScenario.defaultBoundary(fault(), chosenMode)));
            } else if (at.equals("each")) {
                own.forEach(boundary -> variants.add(new OrderScenario(fault(), chosenMode, boundary)));
            } else if (own.contains(at)) {
                variants.add(new OrderScenario(fault(), chosenMode, at));
            }
        }
        if (variants.isEmpty()) {
            List<String> all = new java.util.ArrayList<>(OrderScenario.boundaries());
            chosen.stream().flatMap(m -> OrderScenario.boundaries(m).stream()).filter(b -> !all.contains(b))
                    .distinct().forEach(all::add);
            throw new UsageException("--at must be one of " + String.join(", ", all) + " or each for --mode "
                    + mode + ", not " + at);
        }
        return variants;
    }
}
