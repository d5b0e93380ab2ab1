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
                + "PostgreSQL only. No child JVM is left running.")
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
                    + "workflow, or all. Default: all the scenario shows, unmitigated first.")
    String mode = "all";

    @Option(names = "--at", paramLabel = "PHASE",
            description = "The step boundary where the holder is hit: order_created, charge_created, order_paid, "
                    + "receipt_sent, or each. Default: charge_created (crash), order_created (pause).")
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
        String fallback = fault() == OrderScenario.Fault.CRASH ? "charge_created" : "order_created";
        String boundary = at == null ? fallback : at;
        List<String> boundaries;
        if (boundary.equals("each")) {
            boundaries = OrderScenario.boundaries();
        } else if (OrderScenario.boundaries().contains(boundary)) {
            boundaries = List.of(boundary);
        } else {
            throw new UsageException("--at must be one of " + String.join(", ", OrderScenario.boundaries())
                    + " or each, not " + boundary);
        }
        return chosen.stream().<Scenario>flatMap(m -> boundaries.stream().map(b -> new OrderScenario(fault(), m, b)))
                .toList();
    }
}
