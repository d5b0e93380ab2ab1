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
                + "order row. The race runs in a classic group and in one of the consumer protocol (KIP-848), whose "
                + "rows are ordered by a latch (the partition moves at B's next heartbeat, which can come after A's "
                + "charge). On a Kafka broker the lab starts in its own JVM (KRaft, 127.0.0.1), or the one given by "
                + "--kafka-url.")
final class RedeliveryCommand extends KafkaScenarioCommand {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "run (a processed-messages table), wait (the adapter, redelivery WAIT), raise (the adapter, "
                    + "redelivery SKIP) or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;

    @Option(names = "--group-protocol", paramLabel = "PROTOCOL", defaultValue = "both",
            description = "classic (the group rebalances as a whole), consumer (KIP-848: partitions move one member "
                    + "at a time, at heartbeats) or both. Default: ${DEFAULT-VALUE}.")
    String groupProtocol;

    private String store;

    /** Remembered: the inbox's row runs on the store's own PostgreSQL only. */
    @Override
    void checkStore(String store) {
        this.store = store;
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        if (!List.of("classic", "consumer", "both").contains(groupProtocol)) {
            throw new UsageException("--group-protocol must be classic, consumer or both, not " + groupProtocol);
        }
        boolean classic = !groupProtocol.equals("consumer");
        RedeliveryBroker broker = broker();
        List<ScenarioRunner.Plan> plans = new java.util.ArrayList<>();
        if (classic) {
            plans.add(new ScenarioRunner.Plan(new RedeliveryScenario(broker), policy.policies()));
        }
        if (!groupProtocol.equals("classic")) {
            plans.add(new ScenarioRunner.Plan(RedeliveryScenario.onConsumerProtocol(broker), policy.policies()));
        }
        if (classic && policy.policies().contains(LabPolicy.WAIT) && "postgres".equals(store)) {
            plans.add(new ScenarioRunner.Plan(RedeliveryScenario.inbox(broker), List.of(LabPolicy.WAIT)));
        }
        return plans;
    }

}
