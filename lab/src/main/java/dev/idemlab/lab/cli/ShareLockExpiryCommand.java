package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.RedeliveryBroker;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.ShareLockExpiryScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario share-lock-expiry}: the post's race on a Kafka share group (KIP-932). */
@Command(name = "share-lock-expiry", mixinStandardHelpOptions = true,
        description = "Consumer A of a share group (KIP-932) is delivered the charge record under an acquisition lock "
                + "and is inside a charge that outlasts it (1.5 locks); the lock runs out and the broker delivers the "
                + "record again to consumer B, which joined the group at 50 ms. Under run (a processed-messages table "
                + "written after handling) the card is charged twice; under wait and raise (the Kafka adapter, "
                + "redelivery WAIT, and SKIP releasing the record after a backoff) once. A's late acknowledgement is "
                + "refused by the broker; each member's delivery counts are reported. On a Kafka broker the lab starts "
                + "in its own JVM with share groups on and a 1 s lock (KRaft, 127.0.0.1), or the one given by "
                + "--kafka-url, which must have share groups on (its shortest lock is used).")
final class ShareLockExpiryCommand extends KafkaScenarioCommand {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "run (a processed-messages table), wait (the adapter, redelivery WAIT), raise (the adapter, "
                    + "redelivery SKIP) or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;



    @Override
    List<ScenarioRunner.Plan> plan() {
        return List.of(new ScenarioRunner.Plan(new ShareLockExpiryScenario(broker()), policy.policies()));
    }

    /** A broker with share groups on: a private one started so, or one given by URL, checked to have them. */
    @Override
    RedeliveryBroker newBroker(String url) {
        return RedeliveryBroker.withShareGroups(url);
    }

    @Override
    List<Scenario> scenariosForHelp() {
        return List.of(new ShareLockExpiryScenario(RedeliveryBroker.withShareGroups(null)));
    }

}
