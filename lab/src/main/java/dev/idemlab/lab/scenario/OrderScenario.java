package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.store.postgres.IfOutcomeUnknown;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.StepOutcomeUnknownException;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Local effects in the failure lab: an order placement ({@link OrderPlacement}) whose holder runs in a
 * child JVM on the store's PostgreSQL and is hit at a step boundary, then the client retries with the
 * same key. Two faults: {@code crash-mid-order} kills the holder with SIGKILL; {@code
 * stale-holder-order} stops it with SIGSTOP for two leases, lets the retry take the key over and
 * finish, then lets the holder go on. The orders table, the provider's ledger and the mailer's are
 * read back afterwards: every figure comes from them. The child is killed and waited for in every case.
 *
 * <p>The crash is also shown under each policy of a workflow step whose outcome is unknown (issue 42): the
 * holder is killed inside the charge step, once its started marker committed ({@code charge_started}) or
 * once the provider answered ({@code charge_answered}), at a provider that does not deduplicate, so that a
 * blind re-run shows as a second charge; a stop is retried twice, to show that it is kept.
 */
public final class OrderScenario implements Scenario {

    static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration LATENCY = Duration.ofMillis(50);

    /** What happens to the holder at the boundary. */
    public enum Fault {
        CRASH("crash-mid-order", "killed with SIGKILL"),
        PAUSE("stale-holder-order", "stopped with SIGSTOP for two leases while the retry took the key over");

        final String scenario;
        final String how;

        Fault(String scenario, String how) {
            this.scenario = scenario;
            this.how = how;
        }
    }

    private final Fault fault;
    private final OrderPlacement.Mode mode;
    private final String boundary;

    /**
     * @param mode an {@link OrderPlacement.Mode} name
     * @param boundary where the holder is hit, one of {@link #boundaries(String) the mode's boundaries}
     */
    public OrderScenario(Fault fault, String mode, String boundary) {
        this.fault = fault;
        this.mode = OrderPlacement.Mode.parse(mode);
        if (!this.mode.boundaries().contains(boundary)) {
            throw new IllegalArgumentException("a step boundary of " + mode + " is one of " + this.mode.boundaries()
                    + ", not " + boundary);
        }
        this.boundary = boundary;
    }

    /**
     * The modes each fault is shown under, unmitigated first; a crash also under each policy for a step of
     * unknown outcome, at a provider that does not deduplicate.
     */
    public static List<String> modes(Fault fault) {
        return fault == Fault.CRASH
                ? List.of("RESULT_CACHE", "RESERVATION", "DOWNSTREAM_KEY", "TRANSACTIONAL", "WORKFLOW",
                        "WORKFLOW_RERUN", "WORKFLOW_ASK_FIRST", "WORKFLOW_STOP")
                : List.of("DOWNSTREAM_KEY", "TRANSACTIONAL");
    }

    /** The step boundaries between steps, in order. */
    public static List<String> boundaries() {
        return OrderPlacement.PHASES;
    }

    /**
     * Where {@code mode} (an {@link OrderPlacement.Mode} name) is hit, in order: between steps, or, for a
     * mode that shows a policy for a step of unknown outcome, inside the charge step before and after the
     * provider's answer.
     */
    public static List<String> boundaries(String mode) {
        return OrderPlacement.Mode.parse(mode).boundaries();
    }

    /** Where {@code mode} is hit unless told: right after the charge, before or after its recovery point. */
    public static String defaultBoundary(Fault fault, String mode) {
        if (OrderPlacement.Mode.parse(mode).ifUnknown != null) {
            return "charge_answered";
        }
        return fault == Fault.CRASH ? "charge_created" : "order_created";
    }

    @Override
    public String name() {
        return fault.scenario;
    }

    @Override
    public String summary() {
        return fault == Fault.CRASH
                ? "an order (a row in the store's PostgreSQL, a charge, a receipt) whose holder is killed at a step boundary"
                : "an order whose holder is paused past its lease at a step boundary while a retry takes the key over";
    }

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

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        if (!(context.backend() instanceof PostgresBackend)) {
            throw new CannotStageException(name() + " keeps its orders in the store's own PostgreSQL, and "
                    + "this run's store is " + context.backend().server().describe() + "; use --store postgres");
        }
        StoreEndpoint endpoint = StoreEndpoint.of(context.backend()).orElseThrow();
        String prefix = "idemlab-order-" + UUID.randomUUID() + ":";
        String key = context.settings().key();
        String orderRef = "order-" + UUID.randomUUID();
        Timeline timeline = new Timeline();
        try (ScenarioProvider provider = service(timeline, mode.deduplicatingProvider());
             ScenarioProvider mailer = service(null, true);
             PostgresIdempotencyStore store = (PostgresIdempotencyStore) endpoint.open(prefix)) {
            OrderPlacement.createTable(endpoint);
            IdempotencyCoordinator coordinator = OrderPlacement.coordinator(mode, store, LEASE);
            OrderPlacement retry = new OrderPlacement(mode, store, endpoint, provider.client(), mailer.client(),
                    phase -> { });
            List<CallerResult> callers = new ArrayList<>();
            long pid;
            try (ChildHolder holder = ChildHolder.start(endpoint, timeline, OrderHolderMain.class, mode.name(), prefix,
                    key, orderRef, Long.toString(LEASE.toMillis()), provider.where(), mailer.where(), boundary)) {
                pid = holder.pid();
                long start = timeline.nowMs();
                holder.await(OrderHolderMain.AT);
                if (fault == Fault.CRASH) {
                    int exit = holder.kill();
                    callers.add(new CallerResult(HolderMain.CALLER, start, timeline.nowMs(), "killed after " + boundary,
                            "sigkill, exit " + exit, provider.client().chargeCount()));
                    callers.add(place(retry, coordinator, key, orderRef, timeline, provider));
                    if (mode.ifUnknown == IfOutcomeUnknown.STOP) {
                        // A stop is kept: a later retry gets the same answer, never a charge.
                        callers.add(place(retry, coordinator, key, orderRef, timeline, provider));
                    }
                } else {
                    holder.signal("STOP");
                    CallerResult taken;
                    try {
                        ChildHolderScenario.letTimePass(LEASE.multipliedBy(2));
                        taken = place(retry, coordinator, key, orderRef, timeline, provider);
                    } finally {
                        holder.proceed();
                        holder.signal("CONT");
                    }
                    String got = holder.await(HolderMain.GOT);
                    holder.awaitExit();
                    callers.add(new CallerResult(HolderMain.CALLER, start, timeline.nowMs(), got,
                            "paused after " + boundary, provider.client().chargeCount()));
                    callers.add(taken);
                }
            }
            int orders = OrderPlacement.orders(endpoint, orderRef);
            int receipts = mailer.chargeIds().size();
            Map<String, Object> reported = context.reportedSettings();
            reported.put("leaseMs", LEASE.toMillis());
            reported.put("latencyMs", LATENCY.toMillis());
            reported.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            reported.put("boundary", boundary);
            reported.put("orders", orders);
            reported.put("receipts", receipts);
            reported.put("holderPid", pid);
            reported.put("mitigated", mode.mitigated);
            reported.put("deduplicatingProvider", mode.deduplicatingProvider());
            if (mode.ifUnknown != null) {
                reported.put("ifOutcomeUnknown", mode.ifUnknown.name());
            }
            List<String> charges = provider.chargeIds();
            String note = "the holder ran in a child JVM and was " + fault.how + " after " + boundary
                    + "; read back: " + orders + (orders == 1 ? " order" : " orders") + " in " + OrderPlacement.TABLE + ", "
                    + charges.size() + (charges.size() == 1 ? " charge" : " charges") + ", " + receipts
                    + (receipts == 1 ? " receipt" : " receipts");
            return new ScenarioRun(name(), mode == OrderPlacement.Mode.RESULT_CACHE ? "run" : "wait",
                    mode.label + (fault == Fault.CRASH ? ", killed" : ", paused") + " after " + boundary,
                    context.backend().server(), reported, callers, charges, coordinator.stats().totalStorageErrors(),
                    note, timeline.events());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read or create the orders table: " + e.getMessage(), e);
        }
    }

    /**
     * The provider, drawn on the timeline ({@code timeline}), or the mailer, left off it ({@code null});
     * deduplicating on the downstream key unless the mode shows a policy for a step of unknown outcome.
     */
    private static ScenarioProvider service(Timeline timeline, boolean deduplicating) {
        FakePaymentProvider.Builder fake = FakePaymentProvider.builder().latency(LATENCY).deduplicateOnKey(deduplicating);
        return ScenarioProvider.of((timeline == null ? fake : fake.observer(timeline)).build(), ProviderChoice.HTTP);
    }

    /**
     * Places the order; answered "in progress" (an ask-first step whose killed holder's call could still
     * land: its lease and the step's provider deadline have not passed), waits as told and places it again.
     */
    private static String placeOnceNotInProgress(OrderPlacement placement, IdempotencyCoordinator coordinator,
                                                 String key, String orderRef) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return placement.place(coordinator, key, orderRef);
            } catch (IdempotencyInProgressException e) {
                if (attempt == 3) {
                    throw e;
                }
                ChildHolderScenario.letTimePass(e.retryAfter());
            }
        }
    }

    private static CallerResult place(OrderPlacement placement, IdempotencyCoordinator coordinator, String key,
                                      String orderRef, Timeline timeline, ScenarioProvider provider) {
        long start = timeline.nowMs();
        String got;
        try {
            got = placeOnceNotInProgress(placement, coordinator, key, orderRef);
        } catch (StepOutcomeUnknownException e) {
            got = e.getClass().getSimpleName() + " (unknown outcome at step " + e.phase() + ")";
        } catch (Exception e) {
            got = e.getClass().getSimpleName();
        }
        return new CallerResult("retry", start, timeline.nowMs(), got, "", provider.client().chargeCount());
    }
}
