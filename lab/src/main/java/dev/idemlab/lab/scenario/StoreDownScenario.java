package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.infra.StoreOutage;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The store itself is down, for real: its server was stopped (or, with a user's URL, the store
 * points where nothing listens). Failing open, the charge runs anyway and the storage error is
 * counted; failing closed, the call is refused and nothing is charged.
 *
 * <p>With a downstream-key variant the client also retries (as a client that timed out would):
 * both calls fail open. Without the key the provider charges twice; with the coordinator's
 * downstream key passed to a provider that deduplicates, once, although the store is gone: the
 * post's "the two together are what once actually means".
 */
public final class StoreDownScenario implements Scenario {

    /** {@code null}: the post's single call; else whether the key goes downstream. */
    private final Boolean downstreamKey;

    /** The post's table: one call, the store gone. */
    public StoreDownScenario() {
        this.downstreamKey = null;
    }

    /** A call and its retry with the store gone, the downstream key passed or not. */
    public StoreDownScenario(boolean downstreamKey) {
        this.downstreamKey = downstreamKey;
    }

    /** The post's row, then the retry without and with the downstream key. */
    public static List<Scenario> all() {
        return List.of(new StoreDownScenario(), new StoreDownScenario(false), new StoreDownScenario(true));
    }

    @Override
    public String name() {
        return "store-down";
    }

    @Override
    public String summary() {
        return "the store's server is unreachable when the charge arrives";
    }

    @Override
    public String cannotCallThroughProxy() {
        return null;
    }

    private static StoreOutage outageOf(ScenarioContext context) {
        try {
            return context.backend().openOutage();
        } catch (UnsupportedOperationException cannotGoDown) {
            throw new CannotStageException(cannotGoDown.getMessage());
        }
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) {
        if (context.callThrough() == CallThrough.PROXY && policy == LabPolicy.RUN) {
            throw new CannotStageException(CallThrough.NO_PROXY_FOR_THE_RESULT_CACHE); // before a server is stopped for it
        }
        ScenarioSettings settings = context.settings();
        Timeline timeline = new Timeline();
        boolean keyed = Boolean.TRUE.equals(downstreamKey);
        try (ScenarioProvider provider = context.openProvider(timeline, b -> b.deduplicateOnKey(keyed));
             StoreOutage outage = outageOf(context)) {
            IdempotencyCoordinator coordinator = context.coordinator(new TimelineStore(outage.store(), timeline), policy);
            ChargeClient client = (downstreamKey == null
                    ? new ChargeClient(coordinator, provider.client(), timeline)
                    : new ChargeClient(coordinator, provider.client(), timeline,
                            keyed ? ChargeClient.Downstream.CONTEXT_KEY : ChargeClient.Downstream.NONE))
                    .through(context.callThrough(), policy);
            List<CallerResult> callers = new ArrayList<>();
            callers.add(client.charge(downstreamKey == null ? "store unreachable" : "first call", settings.key(),
                    ScenarioSettings.AMOUNT));
            if (downstreamKey != null) {
                callers.add(client.charge("retry", settings.key(), ScenarioSettings.AMOUNT));
            }
            String mode = settings.storeFailureMode().name().toLowerCase(Locale.ROOT).replace('_', ' ');
            Map<String, Object> reported = context.reportedSettings();
            if (downstreamKey != null) {
                reported.put("downstreamKey", keyed ? "on" : "off");
                reported.put("providerDeduplicates", keyed);
                reported.put("mitigated", keyed);
            }
            return new ScenarioRun(name(), StagedScenario.policyName(policy),
                    downstreamKey == null ? mode : mode + ", downstream key " + (keyed ? "on" : "off"),
                    context.backend().server(), reported, callers, provider.chargeIds(),
                    coordinator.stats().totalStorageErrors(), outage.how(), timeline.events());
        }
    }
}
