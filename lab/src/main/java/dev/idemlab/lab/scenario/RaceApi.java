package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.PaymentProvider;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;

/**
 * A payment API the in-flight race runs against over HTTP ({@link HttpInFlightScenario}), started for
 * one run and stopped when it is closed: the lab's demo server, or the Spring Boot sample in a child
 * JVM. Either way it takes {@code POST /orders/{id}/charge} with {@code {"amount": N}} and an
 * Idempotency-Key, and charges a counting provider whose ledger the run reads.
 */
interface RaceApi extends AutoCloseable {

    /** {@code http://127.0.0.1:PORT}. */
    URI uri();

    /** The provider it charges, as the lab reads its ledger. */
    PaymentProvider ledger();

    /** Storage errors its coordinator counted. */
    long storageErrors();

    /** A line for the report: what served the race, and where. */
    String note();

    /** Stops what {@link Target#start} started; the store belongs to the caller. */
    @Override
    void close();

    /** One charge request, as the race's callers send it: the one HTTP client path of the race. */
    @FunctionalInterface
    interface Requests {
        HttpResponse<String> send(URI api, String key, long amount) throws IOException, InterruptedException;
    }

    /** What the race runs against, and how to start it for one run. Thread-safe. */
    interface Target {

        /**
         * Starts the API on {@code store}'s server under {@code policy}, warmed up off the record (its
         * warm-up charges nothing that the run's ledger shows), charging a fresh provider with the
         * context's latency.
         *
         * @param timeline the run's timeline, which a provider in this JVM records its side onto
         * @param requests how the race sends its requests, for the warm-up
         * @throws IOException when it cannot be started
         */
        RaceApi start(ScenarioContext context, IdempotencyStore store, LabPolicy policy, Timeline timeline,
                      Requests requests)
                throws IOException, InterruptedException;

        /** The report's name for the row of {@code policy}. */
        String label(LabPolicy policy);

        /** The target's name in the run's settings ({@code spring-sample}), or {@code null} for the demo server. */
        default String reportedName() {
            return null;
        }

        /** {@code over HTTP} or {@code over HTTP, through the Spring sample}: for the summary. */
        String summary();
    }
}
