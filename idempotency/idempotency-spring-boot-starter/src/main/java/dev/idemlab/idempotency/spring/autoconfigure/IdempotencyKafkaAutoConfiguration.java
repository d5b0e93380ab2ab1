package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.spring.IdempotencyProperties;
import dev.idemlab.idempotency.spring.IdempotentListeners;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * {@code @Idempotent} on {@code @KafkaListener} methods: with Spring Kafka on the class path and no
 * {@link CommonErrorHandler} of the service's, the listener containers get a {@link DefaultErrorHandler}
 * that retries a record met in flight (every {@code idempotency.kafka.in-flight-retry}, 100 ms by
 * default) until its first delivery completed, and never gives it up and commits it meanwhile
 * ({@link IdempotentListeners}). Spring Boot's Kafka auto-configuration hands the one error handler bean
 * to its container factory. Defined before it, so that the bean is there when the factory is made.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(DefaultErrorHandler.class)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyKafkaAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(CommonErrorHandler.class)
    DefaultErrorHandler idempotencyKafkaErrorHandler(IdempotencyProperties properties) {
        return IdempotentListeners.retryInFlight(new DefaultErrorHandler(), properties.kafka().inFlightRetry());
    }
}
