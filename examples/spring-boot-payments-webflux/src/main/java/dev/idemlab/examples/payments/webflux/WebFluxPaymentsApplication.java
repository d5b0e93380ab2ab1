package dev.idemlab.examples.payments.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A payments service on Spring WebFlux: {@code POST /orders/{id}/charge} behind the starter's WebFlux
 * idempotency filter, configured by {@code idempotency.web.routes} alone; the charge goes to an
 * in-process provider that counts every charge it is asked for ({@code GET /ledger}), so a black-box
 * check can see a key charged twice behind identical answers.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class WebFluxPaymentsApplication {

    public static void main(String[] args) {
        SpringApplication.run(WebFluxPaymentsApplication.class, args);
    }
}
