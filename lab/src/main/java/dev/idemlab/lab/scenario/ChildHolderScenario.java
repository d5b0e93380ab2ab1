package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A failure staged with the holder in a child JVM ({@link HolderMain}): the provider runs behind its
 * HTTP service in this process, so its ledger outlives the holder; this process's coordinator plays
 * the client's retry on the same store and key prefix. Needs a store with a server. The child is
 * killed and waited for in every case before the run returns.
 */
abstract class ChildHolderScenario implements Scenario {

    static final Duration LEASE = Duration.ofSeconds(1);
    static final Duration PROVIDER_LATENCY = Duration.ofMillis(100);

    /** Its timing is its own: the failure it stages needs it. */
    @Override
    public List<String> fixedOptions() {
        return List.of("--latency-ms", "--lease-s");
    }

    /** The child JVM charges the provider's HTTP service, so that the ledger outlives it. */
    @Override
    public ProviderChoice fixedProvider() {
        return ProviderChoice.HTTP;
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return List.of(LabPolicy.WAIT);
    }

    abstract String label();

    abstract boolean mitigated();

    /** Deduplication and fences of the provider service. */
    abstract FakePaymentProvider.Builder providerOptions(FakePaymentProvider.Builder provider);

    /** What both the holder and the retry pass downstream. */
    abstract ChargeClient.Downstream downstream();

    /** {@link HolderMain}'s flags. */
    abstract List<String> holderFlags();

    /** Stages the failure and the retry; returns every caller's result, the holder's first. */
    abstract List<CallerResult> stage(ChildHolder holder, ChargeClient retries, IdempotencyStore store,
                                      ScenarioProvider provider, Timeline timeline, String key)
            throws InterruptedException;

    abstract String note();

    @Override
    public final ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        StoreEndpoint endpoint = StoreEndpoint.of(context.backend()).orElseThrow(() -> new CannotStageException(
                CannotStage.childCannotReach(name(), context.backend())));
        String prefix = "idemlab-holder-" + UUID.randomUUID() + ":";
        String key = context.settings().key();
        Timeline timeline = new Timeline();
        FakePaymentProvider fake = providerOptions(FakePaymentProvider.builder().latency(PROVIDER_LATENCY).observer(timeline))
                .build();
        try (ScenarioProvider provider = ScenarioProvider.of(fake, ProviderChoice.HTTP);
             IdempotencyStore raw = endpoint.open(prefix)) {
            IdempotencyStore store = new TimelineStore(raw, timeline);
            IdempotencyCoordinator coordinator = context.coordinator(store, policy,
                    config -> config.lease(LEASE).waitTimeout(LEASE.multipliedBy(5)));
            List<String> args = new ArrayList<>(List.of(prefix, key, Long.toString(LEASE.toMillis()),
                    provider.where(), downstream().name()));
            args.addAll(holderFlags());
            long pid;
            List<CallerResult> callers;
            try (ChildHolder holder = ChildHolder.start(endpoint, timeline, args.toArray(String[]::new))) {
                pid = holder.pid();
                callers = stage(holder, new ChargeClient(coordinator, provider.client(), timeline, downstream()), store,
                        provider, timeline, key);
            }
            Map<String, Object> reported = context.reportedSettings();
            reported.put("leaseMs", LEASE.toMillis());
            reported.put("latencyMs", PROVIDER_LATENCY.toMillis());
            reported.put("provider", provider.where().startsWith("http") ? "http (service in the lab's JVM)" : "in-process");
            reported.put("holderPid", pid);
            reported.put("mitigated", mitigated());
            return new ScenarioRun(name(), StagedScenario.policyName(policy), label(), context.backend().server(),
                    reported, callers, provider.chargeIds(), coordinator.stats().totalStorageErrors(), note(),
                    timeline.events());
        }
    }

    /** The holder's answer as a caller row. */
    static CallerResult holderResult(String name, long startMs, Timeline timeline, String got, ScenarioProvider provider) {
        String[] parts = got.split(" ", 2);
        return new CallerResult(name, startMs, timeline.nowMs(), parts[0], parts.length > 1 ? parts[1] : "",
                provider.client().chargeCount());
    }

    /** Lets real time pass: the store decides expiry by its own clock. */
    static void letTimePass(Duration time) throws InterruptedException {
        java.util.concurrent.TimeUnit.NANOSECONDS.sleep(time.toNanos());
    }
}
