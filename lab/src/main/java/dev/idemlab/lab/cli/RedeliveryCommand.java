package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.RedeliveryBroker;
import dev.idemlab.lab.scenario.RedeliveryScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario redelivery}: the post's race on a message queue, on a real Kafka broker. */
@Command(name = "redelivery", mixinStandardHelpOptions = true,
        description = "Consumer A of a group is inside the charge for a record when consumer B joins at 50 ms; A's "
                + "poll interval runs out, the group rebalances before A commits, and B is delivered the same record. "
                + "Under run (a processed-messages table written after handling) the card is charged twice; under wait "
                + "and raise (the Kafka adapter, redelivery WAIT and SKIP) once; with --store postgres, wait adds the "
                + "inbox's row (the order row written in the transaction that completes the record's key): once, one "
                + "order row. On a Kafka broker the lab starts in its own JVM (KRaft, 127.0.0.1), or the one given by "
                + "--kafka-url.")
final class RedeliveryCommand extends KafkaScenarioCommand {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "run (a processed-messages table), wait (the adapter, redelivery WAIT), raise (the adapter, "
                    + "redelivery SKIP) or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;


    private String store;

    /** Remembered: the inbox's row runs on the store's own PostgreSQL only. */
    @Override
    void checkStore(String store) {
        this.store = store;
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        RedeliveryBroker broker = broker();
        List<ScenarioRunner.Plan> plans = new java.util.ArrayList<>(List.of(
                new ScenarioRunner.Plan(new RedeliveryScenario(broker), policy.policies())));
        if (policy.policies().contains(LabPolicy.WAIT) && "postgres".equals(store)) {
            plans.add(new ScenarioRunner.Plan(RedeliveryScenario.inbox(broker), List.of(LabPolicy.WAIT)));
        }
        return plans;
    }

}
