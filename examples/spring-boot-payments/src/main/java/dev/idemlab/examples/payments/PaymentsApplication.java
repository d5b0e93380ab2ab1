package dev.idemlab.examples.payments;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A payments service on the idempotency starter: {@code POST /orders/{orderId}/charge} records an
 * order in its own database and charges it at the payment provider over HTTP, once per
 * Idempotency-Key. Run it with {@code java -jar target/spring-boot-payments.jar}, choosing the store
 * with {@code --idempotency.store=redis|postgres} and the mode with
 * {@code --payments.idempotency=reservation|result-cache}.
 */
@SpringBootApplication(proxyBeanMethods = false)
@EnableConfigurationProperties(PaymentsProperties.class)
public class PaymentsApplication {

    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }
}
