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
 * What a scenario runs against: a store backend, its settings, the coordinator under test, where the
 * provider is, and whether callers reach the coordinator directly or through {@code Idempotency.proxy}.
 */
public record ScenarioContext(StoreBackend backend, ScenarioSettings settings, CoordinatorFactory coordinators,
                              ProviderChoice providerChoice, CallThrough callThrough) {

    public ScenarioContext {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(coordinators, "coordinators");
        Objects.requireNonNull(providerChoice, "providerChoice");
        Objects.requireNonNull(callThrough, "callThrough");
    }

    /** A context whose callers call the coordinator directly. */
    public ScenarioContext(StoreBackend backend, ScenarioSettings settings, CoordinatorFactory coordinators,
                           ProviderChoice providerChoice) {
        this(backend, settings, coordinators, providerChoice, CallThrough.COORDINATOR);
    }

    /** A context whose callers reach the provider in process. */
    public ScenarioContext(StoreBackend backend, ScenarioSettings settings, CoordinatorFactory coordinators) {
        this(backend, settings, coordinators, ProviderChoice.IN_PROCESS);
    }

    /** This context with the provider reached as {@code choice}. */
    public ScenarioContext withProvider(ProviderChoice choice) {
        return new ScenarioContext(backend, settings, coordinators, choice, callThrough);
    }

    /**
     * This context with callers reaching the coordinator as {@code how} says. The post's four scenarios
     * (in-flight, key-reuse, provider-timeout, store-down) honour it; a scenario whose callers do not
     * charge through the lab's own client in this process refuses {@link CallThrough#PROXY} by
     * {@link Scenario#cannotCallThroughProxy()}.
     */
    public ScenarioContext withCallThrough(CallThrough how) {
        return new ScenarioContext(backend, settings, coordinators, providerChoice, how);
    }

    /**
     * A fresh provider recording onto {@code timeline}, built with the scenario's latency and then
     * {@code options}, reached as {@link #providerChoice()} says. The caller closes it.
     */
    ScenarioProvider openProvider(Timeline timeline,
                                  java.util.function.UnaryOperator<FakePaymentProvider.Builder> options) {
        FakePaymentProvider fake = options.apply(
                FakePaymentProvider.builder().latency(settings.latency()).observer(timeline)).build();
        return ScenarioProvider.of(fake, providerChoice);
    }

    /** A coordinator over {@code store} with the scenario's policy, lease and store-failure mode. */
    IdempotencyCoordinator coordinator(IdempotencyStore store, LabPolicy policy) {
        return coordinator(store, policy, java.util.function.UnaryOperator.identity());
    }

    /** As {@link #coordinator(IdempotencyStore, LabPolicy)}, with a scenario's own changes to the config. */
    IdempotencyCoordinator coordinator(IdempotencyStore store, LabPolicy policy,
                                       java.util.function.UnaryOperator<IdempotencyConfig.Builder> changes) {
        return coordinators.create(store, policy, changes.apply(IdempotencyConfig.custom()
                .lease(settings.lease())
                .storeFailureMode(settings.storeFailureMode()))
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
        if (providerChoice == ProviderChoice.HTTP) {
            reported.put("provider", "http");
        }
        if (callThrough == CallThrough.PROXY) {
            reported.put("callThrough", "proxy");
        }
        return reported;
    }
}
