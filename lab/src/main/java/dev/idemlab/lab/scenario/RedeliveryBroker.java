package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.testsupport.TestKafka;

/**
 * The Kafka broker of one {@code lab scenario redelivery} run: the one given by {@code --kafka-url} (or
 * {@value TestKafka#URL_ENV}), used as a scratch broker whose topics the run creates and deletes, else a
 * private one the lab starts in its own JVM (Kafka's KRaft server on 127.0.0.1 ephemeral ports). Started
 * on first use, so that a usage error starts nothing; stopped by {@link #close()}, which the command
 * calls whether the run passed or not. Thread-safe.
 */
public final class RedeliveryBroker implements AutoCloseable {

    private final String url;
    private TestKafka kafka;
    private int topics;

    /** A broker from {@code url}, or a private one when {@code url} is {@code null} or blank. */
    public RedeliveryBroker(String url) {
        this.url = url;
    }

    /** The broker, started (or reached) on first call. */
    synchronized TestKafka kafka() {
        if (kafka == null) {
            kafka = TestKafka.provide(url);
        }
        return kafka;
    }

    /** A fresh topic of one partition for one run, deleted with the others when a given broker is closed. */
    synchronized String freshTopic(String name) {
        return kafka().createTopic(name + "-" + (++topics), 1);
    }

    /** One line for the report: {@code Kafka 4.1.2 at 127.0.0.1:40949 (in-process ...)}. */
    synchronized String describe() {
        return kafka().toString();
    }

    /** Stops a private broker, or deletes the run's topics on a given one. */
    @Override
    public synchronized void close() {
        if (kafka != null) {
            kafka.close();
        }
    }
}
