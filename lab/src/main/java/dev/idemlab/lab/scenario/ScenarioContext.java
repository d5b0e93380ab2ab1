package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a scenario runs against: a store backend, its settings, and the coordinator under test.
 */
public record ScenarioContext(StoreBackend backend, ScenarioSettings settings, CoordinatorFactory coordinators) {

    public ScenarioContext {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(coordinators, "coordinators");
    }

    /** A coordinator over {@code store} with the scenario's policy, lease and store-failure mode. */
    IdempotencyCoordinator coordinator(IdempotencyStore store, LabPolicy policy) {
        return coordinators.create(store, policy, IdempotencyConfig.custom()
                .lease(settings.lease())
                .storeFailureMode(settings.storeFailureMode())
                .build());
    }

    /** A fresh provider with the scenario's latency that records onto {@code timeline}. */
    FakePaymentProvider provider(Timeline timeline) {
        return FakePaymentProvider.builder().latency(settings.latency()).observer(timeline).build();
    }

    /** The settings every run reports. */
    Map<String, Object> reportedSettings() {
        Map<String, Object> reported = new LinkedHashMap<>();
        reported.put("latencyMs", settings.latency().toMillis());
        reported.put("key", settings.key());
        reported.put("leaseMs", settings.lease().toMillis());
        reported.put("onStoreFailure", settings.storeFailureMode().name());
        return reported;
    }
}
