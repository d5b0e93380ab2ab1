package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Spring Boot application whose {@link LocalOrders} write to the PostgreSQL that holds the
 * idempotency records. Its coordinator is its own, over the starter's store bean, so that the test can
 * hold a holder's renewals back: a paused holder's heartbeat stops with it.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class LocalOrdersApplication {

    @Bean
    LocalOrders localOrders(JdbcTemplate jdbc) {
        return new LocalOrders(jdbc);
    }

    @Bean
    LocalOrders.Desk desk(LocalOrders orders) {
        return new LocalOrders.Desk(orders);
    }

    @Bean
    RenewalHold renewalHold() {
        return new RenewalHold();
    }

    @Bean
    IdempotencyCoordinator idempotencyCoordinator(IdempotencyStore store, RenewalHold hold,
                                                  IdempotencyProperties properties) {
        return IdempotencyCoordinator.builder(new HeldRenewals(store, hold)).config(properties.coordinatorConfig())
                .build();
    }

    /** The namespaces whose renewals the test holds back. Thread-safe. */
    static final class RenewalHold {

        private final Set<String> held = ConcurrentHashMap.newKeySet();

        /** From now on {@code namespace}'s lease runs out however long its holder runs. */
        void hold(String namespace) {
            held.add(namespace);
        }

        boolean holds(String namespace) {
            return held.contains(namespace);
        }
    }

    /** The store, with the renewals the hold names acknowledged but not made. Not a bean: the store bean stays the starter's. */
    private static final class HeldRenewals extends ForwardingIdempotencyStore {

        private final RenewalHold hold;

        HeldRenewals(IdempotencyStore store, RenewalHold hold) {
            super(store);
            this.hold = hold;
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            return hold.holds(namespace) || super.renew(namespace, token, lease);
        }
    }
}
