package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;
import org.apache.kafka.clients.consumer.ConsumerConfig;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The redelivery table's second table: consumer A of group G runs in a child JVM and is killed with
 * SIGKILL at a boundary of its handling of the charge record (inside the handler before the charge,
 * after the charge, or after the handling returned and before its offset commit), then consumer B joins
 * G in the lab's JVM, is delivered the record (A's session ran out, nothing was committed) and handles
 * it through the same mode ({@link RedeliveryCrashMode}). Every figure is read back: the charges from the
 * provider's ledger (its HTTP service in this JVM, which outlives A), the order rows of the inbox from
 * its table, and whether the record was handled from the offset the broker's group coordinator holds
 * for G. The child is killed and waited for in every case before the run returns.
 */
public final class RedeliveryCrashScenario implements Scenario {

    /** The name on the command line. */
    public static final String NAME = "redelivery-crash";
    static final Duration LEASE = Duration.ofSeconds(1);
    static final Duration PROVIDER_LATENCY = Duration.ofMillis(100);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final RedeliveryBroker broker;
    private final RedeliveryCrashMode mode;
    private final String boundary;

    /**
     * @param mode a mode as the command line spells it ({@link #modes()})
     * @param boundary one of {@link #boundaries()}
     * @throws IllegalArgumentException for an unknown mode or boundary
     */
    public RedeliveryCrashScenario(RedeliveryBroker broker, String mode, String boundary) {
        this.broker = broker;
        this.mode = RedeliveryCrashMode.fromOption(mode);
        if (this.mode == null) {
            throw new IllegalArgumentException("a mode of " + NAME + " is one of " + modes() + ", not " + mode);
        }
        if (!RedeliveryCrashMode.BOUNDARIES.contains(boundary)) {
            throw new IllegalArgumentException("a boundary of " + NAME + " is one of " + boundaries() + ", not " + boundary);
        }
        this.boundary = boundary;
    }

    /** The modes, as the command line spells them, unmitigated first; the inbox last (PostgreSQL only). */
    public static List<String> modes() {
        return java.util.Arrays.stream(RedeliveryCrashMode.values()).map(RedeliveryCrashMode::option).toList();
    }

    /** The modes that run on a store other than PostgreSQL. */
    public static List<String> modesOffPostgres() {
        return java.util.Arrays.stream(RedeliveryCrashMode.values()).filter(m -> !m.inbox)
                .map(RedeliveryCrashMode::option).toList();
    }

    /** Where consumer A is killed, in the order it gets there. */
    public static List<String> boundaries() {
        return RedeliveryCrashMode.BOUNDARIES;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "a consumer in a child JVM is killed with SIGKILL at a step of handling the charge record, before "
                + "its offset commit, and the record is redelivered to another member of its group";
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
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        StoreEndpoint endpoint = StoreEndpoint.of(context.backend()).orElseThrow(() -> new CannotStageException(
                CannotStage.childCannotReach(NAME, context.backend())));
        if (mode.inbox && !(context.backend() instanceof PostgresBackend)) {
            throw new CannotStageException("the inbox writes its order rows in the store's own PostgreSQL, and this "
                    + "run's store is " + context.backend().server().describe() + "; use --store postgres");
        }
        String topic = broker.freshTopic(NAME + "-" + mode.option() + "-" + boundary.replace('_', '-'));
        String group = topic + "-group";
        String key = context.settings().key();
        broker.sendCharge(topic, key);
        String prefix = "idemlab-redelivery-crash-" + UUID.randomUUID() + ":";
        InboxOrders orders = new InboxOrders("order-" + UUID.randomUUID());
        int sessionMs = broker.sessionTimeoutMs();
        Timeline timeline = new Timeline();
        AtomicLong start = new AtomicLong(System.nanoTime());
        FakePaymentProvider fake = FakePaymentProvider.builder().latency(PROVIDER_LATENCY)
                .deduplicateOnKey(mode.downstreamKey).observer(timeline).build();
        try (ScenarioProvider provider = ScenarioProvider.of(fake, ProviderChoice.HTTP);
             IdempotencyStore raw = endpoint.open(prefix)) {
            if (mode.inbox) {
                OrderPlacement.createTable(endpoint);
                orders.local = LocalEffects.of((PostgresIdempotencyStore) raw);
            }
            List<CallerResult> callers = new ArrayList<>();
            Killed a = killA(endpoint, timeline, topic, group, prefix, provider, sessionMs, orders,
                    context.settings().storeFailureMode(), callers);
            IdempotencyCoordinator coordinator = context.coordinator(new TimelineStore(raw, timeline), mode.policy,
                    config -> config.lease(LEASE).waitTimeout(LEASE.multipliedBy(5)));
            callers.add(redeliverToB(coordinator, topic, group, provider, sessionMs, orders, start));
            return report(context, callers, provider.chargeIds(), coordinator, group, topic, endpoint, orders, a,
                    sessionMs, timeline);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create or read the orders table: " + e.getMessage(), e);
        }
    }

    /**
     * Starts consumer A in a child JVM, waits until it reached the boundary, and kills it there with
     * SIGKILL; adds its row to {@code callers} and returns its pid and exit status. The child is reaped whatever happens.
     */
    private Killed killA(StoreEndpoint endpoint, Timeline timeline, String topic, String group, String prefix,
                       ScenarioProvider provider, int sessionMs, InboxOrders orders, StoreFailureMode onStoreFailure,
                       List<CallerResult> callers) throws InterruptedException {
        try (ChildHolder a = ChildHolder.start(endpoint, timeline, RedeliveryCrashConsumerMain.class, mode.name(),
                boundary, broker.kafka().bootstrapServers(), topic, group, prefix, Long.toString(LEASE.toMillis()),
                provider.where(), Integer.toString(sessionMs), orders.ref, onStoreFailure.name())) {
            long startMs = timeline.nowMs();
            String at = a.await(RedeliveryCrashConsumerMain.AT);
            int exit = a.kill();
            callers.add(new CallerResult(HolderMain.CALLER, startMs, timeline.nowMs(), "killed at " + at,
                    "sigkill, exit " + exit, provider.client().chargeCount()));
            return new Killed(a.pid(), exit);
        }
    }

    /** Consumer A's JVM, killed and reaped: its pid and the exit status the kill left. */
    private record Killed(long pid, int exit) { }

    /**
     * Consumer B joins the group in this JVM, is delivered the record once A's session ran out, and handles
     * it through the mode; returns its row once it answered (or the patience ran out), B stopped.
     */
    private CallerResult redeliverToB(IdempotencyCoordinator coordinator, String topic, String group,
                                      ScenarioProvider provider, int sessionMs, InboxOrders orders, AtomicLong start)
            throws InterruptedException {
        AtomicReference<RedeliveryConsumer> self = new AtomicReference<>();
        RedeliveryConsumer b = new RedeliveryConsumer("B", broker.kafka().bootstrapServers(), group, topic,
                Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionMs),
                mode.handler(coordinator, provider.client(), orders, reached -> {
                    if (reached.equals(RedeliveryCrashMode.DELIVERED) && self.get() != null) {
                        self.get().received();
                    }
                }), start, () -> provider.chargeIds().size(), true);
        self.set(b);
        try {
            b.awaitAnswer(PATIENCE);
        } finally {
            b.stop();
        }
        return b.result(RedeliveryScenario.outcome(b, coordinator));
    }

    private ScenarioRun report(ScenarioContext context, List<CallerResult> callers, List<String> charges,
                               IdempotencyCoordinator coordinator, String group, String topic, StoreEndpoint endpoint,
                               InboxOrders orders, Killed a, int sessionMs, Timeline timeline) throws SQLException {
        long committed = broker.committedOffset(group, topic);
        broker.usedGroup(group);
        Map<String, Object> reported = context.reportedSettings();
        reported.put("leaseMs", LEASE.toMillis());
        reported.put("latencyMs", PROVIDER_LATENCY.toMillis());
        reported.put("broker", broker.describe());
        reported.put("sessionTimeoutMs", sessionMs);
        reported.put("mode", mode.option());
        reported.put("boundary", boundary);
        reported.put("mitigated", mode.mitigated());
        reported.put("deduplicatingProvider", mode.downstreamKey);
        reported.put("holderPid", a.pid());
        // reaped by the kill: 128 + 9 is the exit status of a JVM that SIGKILL ended, nothing else gives it
        reported.put("holderExit", a.exit());
        // the record is offset 0 of its partition: handled and nothing lost once the group committed 1
        reported.put("committedOffset", committed);
        reported.put("recordHandled", committed == 1);
        if (mode.inbox) {
            reported.put("orders", OrderPlacement.orders(endpoint, orders.ref));
        }
        return new ScenarioRun(NAME, mode.policy == LabPolicy.RUN ? "run" : "wait", mode.label + ", killed at " + boundary,
                context.backend().server(), reported, callers, charges, coordinator.stats().totalStorageErrors(),
                note(callers), timeline.events());
    }

    /** Nothing unless the staging went wrong: the table's row says the rest. */
    private static String note(List<CallerResult> callers) {
        CallerResult b = callers.get(callers.size() - 1);
        return b.startMs() < 0 ? "warning: the group never redelivered the record to B within " + PATIENCE.toSeconds()
                + " s" : "";
    }
}
