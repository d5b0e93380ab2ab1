package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.StoreDescription;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Reports whether the idempotency store answers: one lookup of a namespace that no call uses (one
 * round trip, which reads nothing and writes nothing), with the store's name and server version as
 * details. A store that cannot be reached, or whose circuit is open, is DOWN with the reason.
 *
 * <p>Thread-safe.
 */
public final class IdempotencyStoreHealthIndicator implements HealthIndicator {

    /** The namespace probed: {@code :} is not allowed in an operation, so no call's record is read. */
    static final String PROBE_NAMESPACE = "idempotency-health:probe";

    private final ObjectProvider<IdempotencyStore> store;

    /** An indicator of the store {@code store} provides when asked. */
    public IdempotencyStoreHealthIndicator(ObjectProvider<IdempotencyStore> store) {
        this.store = store;
    }

    @Override
    public Health health() {
        IdempotencyStore probed = store.getIfUnique();
        if (probed == null) {
            return Health.unknown().withDetail("store", "none").build();
        }
        StoreDescription description = probed.describe();
        Health.Builder health;
        try {
            probed.lookup(PROBE_NAMESPACE);
            health = Health.up();
        } catch (RuntimeException unreachable) {
            health = Health.down(unreachable);
        }
        return health.withDetail("store", description.name())
                .withDetail("version", description.serverVersion())
                .build();
    }
}
