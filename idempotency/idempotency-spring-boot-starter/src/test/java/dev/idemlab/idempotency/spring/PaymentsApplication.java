package dev.idemlab.idempotency.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** A Spring Boot application with one {@code @Idempotent} bean, on whatever store its properties name. */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class PaymentsApplication {

    @Bean
    Ledger ledger() {
        return new Ledger();
    }

    @Bean
    Payments payments(Ledger ledger) {
        return new Payments(ledger);
    }
}
