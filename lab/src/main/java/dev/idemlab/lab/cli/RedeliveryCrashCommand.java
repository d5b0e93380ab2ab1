package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.RedeliveryBroker;
import dev.idemlab.lab.scenario.RedeliveryCrashScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** {@code lab scenario redelivery-crash}: the redelivery table's second table, a consumer killed mid-record. */
@Command(name = RedeliveryCrashScenario.NAME, mixinStandardHelpOptions = true,
        description = "Consumer A of a group runs in a child JVM and is killed with SIGKILL at a step of handling the "
                + "charge record: record_received (inside the handler, before the charge), charge_created (the "
                + "provider answered; no processed row, completion or inbox transaction yet) or record_completed "
                + "(handled, its offset not yet committed). Consumer B then joins the group in the lab's JVM, is "
                + "delivered the record once A's session ran out, and handles it the same way. Each row reads the "
                + "charges from the provider's ledger, the inbox's order rows from lab_orders, and whether the record "
                + "was handled from the offset the broker holds for the group. Killed after the charge, a "
                + "processed-messages table, the adapter and the inbox (PostgreSQL only; one order row) charge twice; "
                + "each with the downstream key at a deduplicating provider, once. Needs --store redis or postgres "
                + "(the child reaches the store by URL). On a Kafka broker the lab starts in its own JVM (KRaft, "
                + "127.0.0.1), or the one given by --kafka-url. No child JVM is left running.")
final class RedeliveryCrashCommand extends KafkaScenarioCommand {

    @Option(names = "--mode", paramLabel = "MODE",
            description = "How the consumers protect the charge: processed-table (a processed-messages table written "
                    + "after handling), adapter (idempotency-kafka, redelivery WAIT), adapter-downstream-key (the same, "
                    + "the downstream key passed to a provider that deduplicates), inbox (PostgreSQL: the order row "
                    + "written in the transaction that completes the record's key), inbox-downstream-key (the same, "
                    + "the downstream key passed to a provider that deduplicates), or all. Default: all (the inbox's "
                    + "two on PostgreSQL only).")
    String mode = "all";

    @Option(names = "--at", paramLabel = "BOUNDARY",
            description = "Where consumer A is killed: record_received, charge_created, record_completed, or each. "
                    + "Default: each.")
    String at = "each";


    private String store;

    /** Consumer A runs in a child JVM, which reaches the store by URL: the memory store it cannot reach. */
    @Override
    void checkStore(String store) {
        if (store.equals("memory")) {
            throw new UsageException(RedeliveryCrashScenario.NAME + " runs consumer A in a child JVM, which cannot reach "
                    + "the memory store: use --store redis or postgres");
        }
        this.store = store;
    }

    /** Every variant, for the help's list of the options it sets for itself. */
    @Override
    List<Scenario> scenariosForHelp() {
        return List.of(new RedeliveryCrashScenario(new RedeliveryBroker(null), RedeliveryCrashScenario.modes().get(0),
                RedeliveryCrashScenario.boundaries().get(0)));
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        List<String> modes = modes();
        List<String> boundaries = boundaries();
        RedeliveryBroker broker = broker();
        List<ScenarioRunner.Plan> plans = new ArrayList<>();
        for (String chosen : modes) {
            for (String boundary : boundaries) {
                plans.add(new ScenarioRunner.Plan(new RedeliveryCrashScenario(broker, chosen, boundary),
                        List.of(LabPolicy.WAIT)));
            }
        }
        return plans;
    }

    private List<String> modes() {
        boolean postgres = "postgres".equals(store);
        if (mode.equals("all")) {
            return postgres ? RedeliveryCrashScenario.modes() : RedeliveryCrashScenario.modesOffPostgres();
        }
        if (!RedeliveryCrashScenario.modes().contains(mode)) {
            throw new UsageException("--mode must be one of " + String.join(", ", RedeliveryCrashScenario.modes())
                    + " or all, not " + mode);
        }
        if (!postgres && !RedeliveryCrashScenario.modesOffPostgres().contains(mode)) {
            throw new UsageException("--mode " + mode + " writes its order rows in the store's own PostgreSQL: "
                    + "use --store postgres");
        }
        return List.of(mode);
    }

    private List<String> boundaries() {
        if (at.equals("each")) {
            return RedeliveryCrashScenario.boundaries();
        }
        if (!RedeliveryCrashScenario.boundaries().contains(at)) {
            throw new UsageException("--at must be one of " + String.join(", ", RedeliveryCrashScenario.boundaries())
                    + " or each, not " + at);
        }
        return List.of(at);
    }

}
