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
            new GhostReservationScenario(false), new GhostReservationScenario(true),
            // Local effects: each way to place an order, killed after its charge; then a holder paused.
            order(OrderScenario.Fault.CRASH, "RESULT_CACHE"), order(OrderScenario.Fault.CRASH, "RESERVATION"),
            order(OrderScenario.Fault.CRASH, "DOWNSTREAM_KEY"), order(OrderScenario.Fault.CRASH, "TRANSACTIONAL"),
            order(OrderScenario.Fault.CRASH, "WORKFLOW"),
            // A workflow's charge of unknown outcome, at a provider that does not deduplicate: one row per policy.
            new OrderScenario(OrderScenario.Fault.CRASH, "WORKFLOW_RERUN", "charge_answered"),
            new OrderScenario(OrderScenario.Fault.CRASH, "WORKFLOW_ASK_FIRST", "charge_answered"),
            new OrderScenario(OrderScenario.Fault.CRASH, "WORKFLOW_STOP", "charge_answered"),
            new OrderScenario(OrderScenario.Fault.PAUSE, "DOWNSTREAM_KEY", "order_created"),
            new OrderScenario(OrderScenario.Fault.PAUSE, "TRANSACTIONAL", "order_created"));

    /** The crash the scenario list shows: right after the charge, where a retry finds the most to repeat. */
    private static Scenario order(OrderScenario.Fault fault, String mode) {
        return new OrderScenario(fault, mode, "charge_created");
    }

    private Scenarios() { }

    public static Optional<Scenario> byName(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The names, for help texts and errors. */
    public static List<String> names() {
        return ALL.stream().map(Scenario::name).distinct().toList();
    }
}
