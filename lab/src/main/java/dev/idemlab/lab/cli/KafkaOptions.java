package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.testsupport.TestKafka;
import picocli.CommandLine.Option;

/** Where a command's Kafka broker comes from: {@code --kafka-url} or its environment variable, else a private one. */
final class KafkaOptions {

    @Option(names = "--kafka-url", paramLabel = "URL",
            description = "Use this Kafka broker (kafka://host:port[,host:port]) as a scratch broker: the run creates "
                    + "its topics and consumer groups there and deletes them. Also env " + TestKafka.URL_ENV + ". "
                    + "Default: a private broker in the lab's JVM.")
    String kafkaUrl;

    /**
     * The broker's URL from the option, else from the environment, checked; {@code null} for a private broker.
     *
     * @throws UsageException naming the option or the variable, and what is wrong with the URL
     */
    String url() {
        String url = kafkaUrl != null ? kafkaUrl : System.getenv(TestKafka.URL_ENV);
        if (url == null || url.isBlank()) {
            return null;
        }
        try {
            TestKafka.bootstrapServersOf(url.strip());
        } catch (IllegalStateException e) {
            throw new UsageException((kafkaUrl != null ? "--kafka-url" : TestKafka.URL_ENV) + ": " + e.getMessage());
        }
        return url.strip();
    }
}
