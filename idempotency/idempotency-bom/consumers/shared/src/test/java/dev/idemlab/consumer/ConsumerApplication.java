package dev.idemlab.consumer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** A service's application: the starter configures itself from {@code idempotency.*}. */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ConsumerApplication {

    @Bean
    Charges charges() {
        return new Charges();
    }
}
