package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.kafka.RecordHandler;
import dev.idemlab.idempotency.kafka.RecordResult;
import dev.idemlab.idempotency.kafka.RedeliveryPolicy;
import dev.idemlab.idempotency.kafka.TransactionalRecordHandler;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.PaymentProvider;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * The post's race on a message queue, on a real Kafka broker: consumer A of group G receives the
 * "charge order 42" record and is inside the 300 ms charge when, at 50 ms, consumer B joins G. A's
 * {@code max.poll.interval.ms} ({@value #A_POLL_INTERVAL_MS} ms) runs out inside the charge, so the
 * group rebalances without waiting for A, before A could commit, and B is delivered the same record.
 * Under RUN both consumers go through a "processed messages" table written after handling (the lab's
 * result cache): B finds no row and charges too. Under WAIT and RAISE they go through the adapter
 * ({@code idempotency-kafka}), whose redelivery policy is WAIT or SKIP: B meets A's reservation and
 * waits for it, or is skipped and retried, and replays A's charge. The inbox ({@link #inbox}, on
 * PostgreSQL) is the adapter under WAIT with the order row written in the transaction that completes
 * the record's key: one charge and one order row. Every row's charges are read from the provider's
 * ledger, the inbox's order rows from its table. A leaves the group once it has answered (its commit refused), so that its
 * rejoining does not start a third rebalance that could take the partition back from B.
 */
public final class RedeliveryScenario implements Scenario {

    public static final String NAME = "redelivery";

    /** A's poll interval: shorter than the charge, so that the group gives the record to B before A commits. */
    static final int A_POLL_INTERVAL_MS = 100;
    /** The longest a run waits for a consumer's answer before it reports what it saw. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String OPERATION = "payment.charge";

    private final RedeliveryBroker broker;
    private final boolean holdAUntilBReceives;
    private final boolean inbox;
    private final GroupProtocol protocol;

    /** The scenario on {@code broker}, which the caller closes, timed as the post times its race. */
    public RedeliveryScenario(RedeliveryBroker broker) {
        this(broker, false);
    }

    /** The inbox's row on {@code broker}: the race under WAIT, each order row written with its record. */
    public static RedeliveryScenario inbox(RedeliveryBroker broker) {
        return new RedeliveryScenario(broker, false, true);
    }

    /**
     * The race ordered by a latch instead of a clock, as {@code lab check} runs it: A starts its charge only
     * once the record reached B, so B is delivered it while A is inside the charge however slow the machine
     * (the CLI's timed race can hand B the record only after A is done on a loaded one, and then shows no race).
     */
    public static RedeliveryScenario latched(RedeliveryBroker broker) {
        return new RedeliveryScenario(broker, true, false);
    }

    /** The inbox's row ordered by a latch, as {@link #latched} orders the others. */
    public static RedeliveryScenario latchedInbox(RedeliveryBroker broker) {
        return new RedeliveryScenario(broker, true, true);
    }

    /**
     * The race in a group of the consumer protocol (KIP-848, {@code group.protocol=consumer}): A's poll
     * interval runs out and A leaves the group, and the coordinator hands the partition to B at B's next
     * heartbeat, which comes at an interval the broker sets (half a second on the lab's broker, 5 s by
     * Kafka's default): often after A's 300 ms charge. So this race is always ordered by a latch.
     */
    public static RedeliveryScenario onConsumerProtocol(RedeliveryBroker broker) {
        return new RedeliveryScenario(broker, true, false, GroupProtocol.CONSUMER);
    }

    RedeliveryScenario(RedeliveryBroker broker, boolean holdAUntilBReceives) {
        this(broker, holdAUntilBReceives, false);
    }

    /**
     * @param holdAUntilBReceives whether A starts its charge only once the record reached B, for tests:
     *     the CLI's race is timed (B joins at 50 ms, A charges for 300 ms), and on a loaded machine the
     *     rebalance can hand B the record only after A is done, which the run then reports; a test
     *     orders the two by a latch instead
     */
    RedeliveryScenario(RedeliveryBroker broker, boolean holdAUntilBReceives, boolean inbox) {
        this(broker, holdAUntilBReceives, inbox, GroupProtocol.CLASSIC);
    }

    private RedeliveryScenario(RedeliveryBroker broker, boolean holdAUntilBReceives, boolean inbox, GroupProtocol protocol) {
        this.broker = broker;
        this.holdAUntilBReceives = holdAUntilBReceives;
        this.inbox = inbox;
        this.protocol = protocol;
    }

    /** The consumers' settings for this row's group protocol, beside {@code extra}. */
    private Map<String, Object> withProtocol(Map<String, Object> extra) {
        Map<String, Object> config = new java.util.HashMap<>(extra);
        if (protocol == GroupProtocol.CONSUMER) {
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        }
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "a rebalance redelivers a record to consumer B while consumer A is still inside the charge";
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return inbox ? List.of(LabPolicy.WAIT) : List.of(LabPolicy.values());
    }

    /** The inbox's row name. */
    static final String INBOX_LABEL = "the inbox on PostgreSQL, the order row and the record in one transaction";

    /** The row's name: the post's first row on a queue, the adapter's two redelivery policies, the inbox. */
    String label(LabPolicy policy) {
        if (inbox) {
            return INBOX_LABEL;
        }
        String row = switch (policy) {
            case RUN -> "a processed-messages table written after handling";
            case WAIT -> "the adapter, redelivery WAIT";
            case RAISE -> "the adapter, redelivery SKIP";
        };
        return protocol == GroupProtocol.CONSUMER ? row + ", consumer protocol" : row;
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        if (inbox) {
            return runInbox(context, policy);
        }
        String topic = broker.freshTopic("redelivery-" + StagedScenario.policyName(policy));
        ScenarioSettings settings = context.settings();
        broker.sendCharge(topic, settings.key());
        try (IdempotencyStore store = context.backend().openStore()) {
            return race(context, policy, topic, store, null);
        }
    }

    /** The inbox's row: on the store's own PostgreSQL, where the order rows live beside the records. */
    private ScenarioRun runInbox(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        if (!(context.backend() instanceof PostgresBackend)) {
            throw new CannotStageException("the inbox writes its order rows in the store's own PostgreSQL, and this "
                    + "run's store is " + context.backend().server().describe() + "; use --store postgres");
        }
        StoreEndpoint endpoint = StoreEndpoint.of(context.backend()).orElseThrow();
        String topic = broker.freshTopic("redelivery-inbox");
        broker.sendCharge(topic, context.settings().key());
        InboxOrders orders = new InboxOrders("order-" + UUID.randomUUID());
        try (PostgresIdempotencyStore store = (PostgresIdempotencyStore) endpoint.open(
                "idemlab-inbox-" + UUID.randomUUID() + ":")) {
            OrderPlacement.createTable(endpoint);
            orders.local = LocalEffects.of(store);
            ScenarioRun run = race(context, policy, topic, store, orders);
            int rows = OrderPlacement.orders(endpoint, orders.ref);
            Map<String, Object> reported = new java.util.LinkedHashMap<>(run.settings());
            reported.put("orders", rows);
            reported.put("target", "the inbox");
            return new ScenarioRun(run.scenario(), run.policy(), run.label(), run.store(), reported,
                    run.callers(), run.charges(), run.storageErrors(), run.note() + "; read back: " + rows
                    + (rows == 1 ? " order row" : " order rows") + " in " + OrderPlacement.TABLE, run.timeline());
        } catch (SQLException e) {
            throw new IllegalStateException("the inbox's order table on " + endpoint.url() + ": " + e.getMessage(), e);
        }
    }

    /** Both consumers on {@code store}, the inbox's orders with it where {@code orders} is given. */
    private ScenarioRun race(ScenarioContext context, LabPolicy policy, String topic, IdempotencyStore store,
                             InboxOrders orders) throws InterruptedException {
        Timeline timeline = new Timeline();
        try (ScenarioProvider provider = context.openProvider(timeline, UnaryOperator.identity())) {
            IdempotencyStore recorded = new TimelineStore(store, timeline);
            // two consumers are two processes: one store, a coordinator each
            IdempotencyCoordinator coordinatorA = context.coordinator(recorded, policy);
            IdempotencyCoordinator coordinatorB = context.coordinator(recorded, policy);
            return race(context, policy, topic, provider, timeline, coordinatorA, coordinatorB, orders);
        }
    }

    private ScenarioRun race(ScenarioContext context, LabPolicy policy, String topic, ScenarioProvider provider,
                             Timeline timeline, IdempotencyCoordinator coordinatorA, IdempotencyCoordinator coordinatorB,
                             InboxOrders orders) throws InterruptedException {
        RedeliveryConsumer[] consumers = stage(context.settings(), policy, topic, provider, coordinatorA, coordinatorB,
                orders);
        List<String> charges = provider.chargeIds();
        List<CallerResult> callers = List.of(consumers[0].result(outcome(consumers[0], coordinatorA)),
                consumers[1].result(outcome(consumers[1], coordinatorB)));
        Map<String, Object> reported = context.reportedSettings();
        reported.put("retryAtMs", context.settings().retryAt().toMillis());
        reported.put("callers", 2);
        reported.put("broker", broker.describe());
        reported.put("aMaxPollIntervalMs", A_POLL_INTERVAL_MS);
        reported.put("bSkipped", consumers[1].skipped());
        reported.put("raceOrderedBy", holdAUntilBReceives ? "a latch" : "the clock");
        reported.put("groupProtocol", protocol.name().toLowerCase(java.util.Locale.ROOT));
        if (protocol == GroupProtocol.CONSUMER) {
            reported.put("target", "consumer protocol");
        }
        reported.put("bDuringA", raced(consumers));
        return new ScenarioRun(name(), StagedScenario.policyName(policy), label(policy), context.backend().server(),
                reported, callers, charges, coordinatorA.stats().totalStorageErrors()
                + coordinatorB.stats().totalStorageErrors(), note(consumers), timeline.events());
    }

    /**
     * A takes the record and starts the charge (the clock's zero); at the retry time B joins the group;
     * each runs until it answered the record or the patience ran out. Both are stopped on return.
     */
    private RedeliveryConsumer[] stage(ScenarioSettings settings, LabPolicy policy, String topic, ScenarioProvider provider,
                                      IdempotencyCoordinator coordinatorA, IdempotencyCoordinator coordinatorB,
                                      InboxOrders orders) throws InterruptedException {
        String group = topic + "-group";
        AtomicLong start = new AtomicLong(System.nanoTime());
        CountDownLatch aCharging = new CountDownLatch(1);
        CountDownLatch bReceived = new CountDownLatch(1);
        RedeliveryConsumer[] consumers = new RedeliveryConsumer[2];
        RecordHandler<String, String, Charge> chargeA = (record, ctx) -> {
            start.set(System.nanoTime());
            aCharging.countDown();
            if (holdAUntilBReceives && !bReceived.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the group never delivered the record to B");
            }
            return charge(provider.client(), ctx.key());
        };
        RecordHandler<String, String, Charge> chargeB = (record, ctx) -> charge(provider.client(), ctx.key());
        String servers = broker.kafka().bootstrapServers();
        IntSupplier ledger = () -> provider.chargeIds().size();
        consumers[0] = new RedeliveryConsumer("A", servers, group, topic, withProtocol(Map.of(
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, A_POLL_INTERVAL_MS)),
                handler(coordinatorA, policy, chargeA, () -> consumers[0].received(), new CountDownLatch(1), orders), start, ledger,
                true);
        try {
            if (!aCharging.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("consumer A was never delivered the charge record on " + broker.describe());
            }
            InFlightScenario.parkUntil(start.get() + settings.retryAt().toNanos());
            consumers[1] = new RedeliveryConsumer("B", servers, group, topic, withProtocol(Map.of()),
                    handler(coordinatorB, policy, chargeB, () -> consumers[1].received(), bReceived, orders), start, ledger, false);
            consumers[0].awaitAnswer(PATIENCE);
            consumers[1].awaitAnswer(PATIENCE);
        } finally {
            for (RedeliveryConsumer consumer : consumers) {
                if (consumer != null) {
                    consumer.stop();
                }
            }
        }
        return consumers;
    }

    /**
     * A consumer's handler: the charge through the adapter, or, with {@code orders}, the inbox: the charge
     * and its order row in the transaction that completes the record's key. Each delivery it reads runs
     * {@code onReceived} and counts {@code received} down. A share group's members use it too.
     */
    static IdempotentRecordHandler<String, String, Charge> handler(
            IdempotencyCoordinator coordinator, LabPolicy policy, RecordHandler<String, String, Charge> charge,
            Runnable onReceived, CountDownLatch received, InboxOrders orders) {
        IdempotentRecordHandler.Builder<String, String, Charge> builder = orders == null
                ? IdempotentRecordHandler.builder(coordinator, OPERATION, ChargeClient.CHARGE, charge)
                : IdempotentRecordHandler.inbox(coordinator, OPERATION, ChargeClient.CHARGE,
                        (TransactionalRecordHandler<String, String, Charge>) record -> orders.local.inTransaction(
                                (connection, context) -> {
                                    Charge made = charge.handle(record, context);
                                    orders.insert(connection, made);
                                    return made;
                                }));
        return builder
                .redelivery(policy == LabPolicy.RAISE ? RedeliveryPolicy.SKIP : RedeliveryPolicy.WAIT)
                .valueReader(value -> {
                    onReceived.run();
                    received.countDown();
                    return value;
                })
                .build();
    }

    private static Charge charge(PaymentProvider provider, String key) {
        return provider.charge(ScenarioSettings.ORDER_ID, ScenarioSettings.AMOUNT, key);
    }

    /** How a consumer's delivery ended, in the in-flight rows' words. */
    static String outcome(RedeliveryConsumer consumer, IdempotencyCoordinator coordinator) {
        return outcome(consumer.answer(), coordinator);
    }

    /** How the delivery a consumer kept ended ({@code null}: none answered), in the in-flight rows' words. */
    static String outcome(RecordResult<?> answer, IdempotencyCoordinator coordinator) {
        if (answer == null) {
            return "error";
        }
        return switch (answer.outcome()) {
            case HANDLED -> "executed";
            case REPLAYED -> coordinator.stats().count(Outcome.WAITED) > 0 ? "waited" : "replayed";
            default -> answer.outcome().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** Whether B was delivered the record while A was still inside the charge: the race was staged. */
    private static boolean raced(RedeliveryConsumer[] consumers) {
        CallerResult b = consumers[1].result("");
        return b.startMs() >= 0 && b.startMs() < consumers[0].result("").endMs();
    }

    /** How the staging went: when B was delivered the record, whether it was skipped, A's refused commit. */
    private static String note(RedeliveryConsumer[] consumers) {
        RedeliveryConsumer a = consumers[0];
        RedeliveryConsumer b = consumers[1];
        CallerResult bRow = b.result("");
        CallerResult aRow = a.result("");
        if (bRow.startMs() < 0) {
            return "warning: the group never delivered the record to B within " + PATIENCE.toSeconds() + " s: no race";
        }
        StringBuilder note = new StringBuilder("B was delivered the record at " + bRow.startMs() + " ms");
        note.append(bRow.startMs() < aRow.endMs()
                ? ", while A was still inside the charge (A done at " + aRow.endMs() + " ms)"
                : ", after A was done (at " + aRow.endMs() + " ms): it did not race A (the rebalance was slow on this machine)");
        if (b.skipped() > 0) {
            note.append("; B skipped it ").append(b.skipped()).append(" time(s) while A held it");
        }
        if (a.commitFailure() != null) {
            note.append("; A's commit was refused (").append(a.commitFailure().getClass().getSimpleName()).append(')');
        }
        return note.toString();
    }
}
