package dev.idemlab.lab.scenario;

import java.util.List;
import java.util.Optional;

/** The catalogue of experiments, in the order the post runs them. */
public final class Scenarios {

    /** Every scenario, in the order {@code scenario all} and {@code check} run them. */
    public static final List<Scenario> ALL = List.of(
            new InFlightScenario(), StripeInFlightScenario.withDefaults(), new KeyReuseScenario(), new ProviderTimeoutScenario(), new StoreDownScenario(),
            // The failure lab: each unmitigated variant, then its mitigation.
            new StoreDownScenario(false), new StoreDownScenario(true),
            new LeaseOverrunScenario(false), new LeaseOverrunScenario(true), new PausedHolderScenario(true),
            new CrashMidChargeScenario(false), new CrashMidChargeScenario(true),
            new ProviderAmbiguousScenario(false), new ProviderAmbiguousScenario(true),
            new ScopeScenario(false), new ScopeScenario(true),
            new LargeResultScenario(false), new LargeResultScenario(true),
            new EvictionScenario(false), new EvictionScenario(true),
            new GhostReservationScenario(false), new GhostReservationScenario(true));

    private Scenarios() { }

    public static Optional<Scenario> byName(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The names, for help texts and errors. */
    public static List<String> names() {
        return ALL.stream().map(Scenario::name).distinct().toList();
    }
}
