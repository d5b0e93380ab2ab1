package dev.idemlab.examples.payments.webflux;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The service's own settings under {@code payments.*}; the store, policy and routes are the starter's
 * ({@code idempotency.*}). Immutable and thread-safe.
 *
 * @param providerLatency how long the in-process provider takes to charge
 * @param portFile where to write the port once the service is ready, for a parent process that started
 *     it on port 0; none by default
 */
@ConfigurationProperties("payments")
public record PaymentsProperties(@DefaultValue("50ms") Duration providerLatency, Path portFile) { }
