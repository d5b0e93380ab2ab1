/**
 * The idempotency coordinator: its API, the store SPI and the in-memory store. The coordinator's
 * implementation ({@code dev.idemlab.idempotency.internal}) is not exported.
 *
 * <p>Jackson ({@code ResultCodec.json}, fingerprints of beans and JSON trees) and Micrometer
 * ({@code IdempotencyCoordinator.Builder.meterRegistry}, {@code .observationRegistry}) are optional: required statically, needed at
 * run time only by the feature that uses them. So is Resilience4j, for the network stores'
 * {@code spi.StoreCircuit}.
 */
module dev.idemlab.idempotency.core {
    requires org.slf4j;
    requires static com.fasterxml.jackson.databind;
    requires static micrometer.core;
    requires static micrometer.observation;
    requires static io.github.resilience4j.circuitbreaker;
    requires static io.github.resilience4j.core;

    exports dev.idemlab.idempotency;
    exports dev.idemlab.idempotency.spi;
    exports dev.idemlab.idempotency.store.memory;
}
