package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.RedeliveryBroker;
import picocli.CommandLine.Mixin;

/**
 * A scenario command whose rows run on a Kafka broker: the one {@code --kafka-url} (or its environment
 * variable) gives, else a private one the lab starts on first use. The broker is made when the plan is
 * (a usage error starts nothing) and closed when the command ends, whether the run passed or not.
 */
abstract class KafkaScenarioCommand extends AbstractScenarioCommand {

    @Mixin
    KafkaOptions kafkaOptions;

    private RedeliveryBroker broker;

    /** This run's broker, made on first call from {@code --kafka-url}; started by the first row that needs it. */
    final RedeliveryBroker broker() {
        if (broker == null) {
            broker = newBroker(kafkaOptions.url());
        }
        return broker;
    }

    /** The broker for {@code url} ({@code null}: a private one): a plain one, unless the scenario needs more. */
    RedeliveryBroker newBroker(String url) {
        return new RedeliveryBroker(url);
    }

    @Override
    public Integer call() throws InterruptedException {
        try {
            return super.call();
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
    }
}
