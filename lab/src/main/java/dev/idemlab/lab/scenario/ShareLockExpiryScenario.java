package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.kafka.RecordHandler;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/**
 * The post's race on a share group (KIP-932), the third Kafka table: member A of share group G is delivered
 * the "charge order 42" record under an acquisition lock and is inside a charge that outlasts the lock
 * (1.5 locks); the lock runs out, the broker delivers the record again (delivery 2) to member B, which
 * joined G at the retry time. No rebalance is needed: a share group hands a record to whichever member
 * fetches it once its lock has run out. Under RUN both members go through a processed-messages table
 * written after handling: B finds no row and charges too. Under WAIT and RAISE they go through the adapter,
 * redelivery WAIT or SKIP, acknowledging as {@code ShareAcknowledgement} says: B meets A's reservation and
 * waits for it, or releases the record after a backoff and replays it on a later delivery. A's late
 * acknowledgement is refused by the broker (the record is B's by then). Charges from the provider's
 * ledger; each member's deliveries (the broker's delivery counts) and the broker's answers in the note.
 */
public final class ShareLockExpiryScenario implements Scenario {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final RedeliveryBroker broker;
    private final boolean holdAUntilBReceives;

    /** The scenario on {@code broker} (one with share groups on, which the caller closes), timed by the lock. */
    public ShareLockExpiryScenario(RedeliveryBroker broker) {
        this(broker, false);
    }

    /**
     * @param holdAUntilBReceives whether A starts its charge only once the record reached B, for tests: the
     *     CLI's race is timed (A's charge lasts 1.5 locks), a test orders it by a latch instead, and A's charge
     *     then takes the settings' latency (300 ms), so that B's retries fit in the group's delivery limit
     */
    ShareLockExpiryScenario(RedeliveryBroker broker, boolean holdAUntilBReceives) {
        this.broker = broker;
        this.holdAUntilBReceives = holdAUntilBReceives;
    }

    @Override
    public String name() {
        return "share-lock-expiry";
    }

    @Override
    public String summary() {
        return "a share group's acquisition lock runs out while consumer A is still inside the charge, and the record "
                + "is delivered to consumer B";
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return List.of(LabPolicy.values());
    }

    @Override
    public List<String> fixedOptions() {
        return List.of("--latency-ms");
    }

    /** The row's name. */
    String label(LabPolicy policy) {
        return switch (policy) {
            case RUN -> "a processed-messages table written after handling";
            case WAIT -> "the adapter, redelivery WAIT";
            case RAISE -> "the adapter, redelivery SKIP: released after a backoff";
        };
    }

    /** How long A's charge lasts: past the lock by half of it, or the settings' latency when a latch orders the race. */
    Duration chargeLatency(ScenarioSettings settings) {
        return holdAUntilBReceives ? settings.latency() : broker.shareRecordLock().multipliedBy(3).dividedBy(2);
    }

    /**
     * How long a run waits for a member: 30 s, or four locks where a broker given by URL has a longer one (the
     * charge alone lasts one and a half).
     */
    private Duration patience() {
        Duration locks = broker.shareRecordLock().multipliedBy(4);
        return locks.compareTo(PATIENCE) > 0 ? locks : PATIENCE;
    }

    /** How long a member holds an in-flight delivery before releasing it: half a lock, inside its own. */
    Duration skipBackoff() {
        return broker.shareRecordLock().dividedBy(2);
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        String topic = broker.freshTopic("share-lock-expiry-" + StagedScenario.policyName(policy));
        String group = topic + "-share-group";
        broker.prepareShareGroup(group);
        broker.sendCharge(topic, context.settings().key());
        Duration latency = chargeLatency(context.settings());
        Timeline timeline = new Timeline();
        try (IdempotencyStore store = context.backend().openStore();
             ScenarioProvider provider = context.openProvider(timeline, builder -> builder.latency(latency))) {
            IdempotencyStore recorded = new TimelineStore(store, timeline);
            // two members are two processes: one store, a coordinator each
            IdempotencyCoordinator coordinatorA = context.coordinator(recorded, policy);
            IdempotencyCoordinator coordinatorB = context.coordinator(recorded, policy);
            ShareGroupMember[] members = stage(context.settings(), policy, group, topic, provider, coordinatorA,
                    coordinatorB);
            List<CallerResult> callers = List.of(members[0].result(RedeliveryScenario.outcome(members[0].answer(), coordinatorA)),
                    members[1].result(RedeliveryScenario.outcome(members[1].answer(), coordinatorB)));
            Map<String, Object> reported = context.reportedSettings();
            reported.put("latencyMs", latency.toMillis());
            reported.put("retryAtMs", context.settings().retryAt().toMillis());
            reported.put("callers", 2);
            reported.put("broker", broker.describe());
            reported.put("recordLockMs", broker.shareRecordLock().toMillis());
            reported.put("skipBackoffMs", skipBackoff().toMillis());
            reported.put("deliveries", Map.of("A", counts(members[0]), "B", counts(members[1])));
            return new ScenarioRun(name(), StagedScenario.policyName(policy), label(policy), context.backend().server(),
                    reported, callers, provider.chargeIds(), coordinatorA.stats().totalStorageErrors()
                    + coordinatorB.stats().totalStorageErrors(), note(members), timeline.events());
        }
    }

    /**
     * A is delivered the record and starts the charge (the clock's zero); at the retry time B joins the
     * group; A runs until its handler answered, B until the broker accepted its acknowledgement, or the
     * patience ran out. Both are stopped on return.
     */
    private ShareGroupMember[] stage(ScenarioSettings settings, LabPolicy policy, String group, String topic,
                                     ScenarioProvider provider, IdempotencyCoordinator coordinatorA,
                                     IdempotencyCoordinator coordinatorB) throws InterruptedException {
        AtomicLong start = new AtomicLong(System.nanoTime());
        CountDownLatch aCharging = new CountDownLatch(1);
        CountDownLatch bReceived = new CountDownLatch(1);
        ShareGroupMember[] members = new ShareGroupMember[2];
        RecordHandler<String, String, Charge> chargeA = (record, ctx) -> {
            start.set(System.nanoTime());
            aCharging.countDown();
            if (holdAUntilBReceives && !bReceived.await(patience().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the broker never delivered the record to B");
            }
            return provider.client().charge(ScenarioSettings.ORDER_ID, ScenarioSettings.AMOUNT, ctx.key());
        };
        RecordHandler<String, String, Charge> chargeB = (record, ctx) ->
                provider.client().charge(ScenarioSettings.ORDER_ID, ScenarioSettings.AMOUNT, ctx.key());
        String servers = broker.kafka().bootstrapServers();
        IntSupplier ledger = () -> provider.chargeIds().size();
        members[0] = new ShareGroupMember("A", servers, group, topic,
                RedeliveryScenario.handler(coordinatorA, policy, chargeA, () -> members[0].received(),
                        new CountDownLatch(1), null), skipBackoff(), start, ledger, true);
        try {
            if (!aCharging.await(patience().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("member A was never delivered the charge record on " + broker.describe());
            }
            InFlightScenario.parkUntil(start.get() + settings.retryAt().toNanos());
            members[1] = new ShareGroupMember("B", servers, group, topic,
                    RedeliveryScenario.handler(coordinatorB, policy, chargeB, () -> members[1].received(), bReceived,
                            null), skipBackoff(), start, ledger, false);
            members[0].awaitAnswer(patience());
            members[1].awaitAccepted(patience());
        } finally {
            for (ShareGroupMember member : members) {
                if (member != null) {
                    member.stop();
                }
            }
        }
        return members;
    }



    private static List<Integer> counts(ShareGroupMember member) {
        return member.deliveries().stream().map(ShareGroupMember.Delivery::count).toList();
    }

    /** How the staging went: when B was delivered the record, each member's deliveries and the broker's answers. */
    private String note(ShareGroupMember[] members) {
        ShareGroupMember a = members[0];
        ShareGroupMember b = members[1];
        CallerResult bRow = b.result("");
        CallerResult aRow = a.result("");
        StringBuilder note = new StringBuilder();
        if (bRow.startMs() < 0) {
            note.append("warning: the broker never delivered the record to B within ").append(patience().toSeconds())
                    .append(" s: no race");
        } else {
            note.append("B was delivered the record at ").append(bRow.startMs()).append(" ms");
            note.append(aRow.endMs() < 0 ? ", and A never answered within " + patience().toSeconds() + " s"
                    : bRow.startMs() < aRow.endMs()
                    ? ", while A was still inside the charge (A done at " + aRow.endMs() + " ms)"
                    : ", after A was done (at " + aRow.endMs() + " ms): it did not race A (B was slow to join on this machine)");
        }
        note.append("; A: ").append(deliveries(a)).append("; B: ").append(deliveries(b));
        if (bRow.startMs() >= 0 && !b.accepted()) {
            note.append("; warning: the broker accepted none of B's acknowledgements");
        }
        return note.toString();
    }

    private static String deliveries(ShareGroupMember member) {
        List<ShareGroupMember.Delivery> deliveries = member.deliveries();
        return deliveries.isEmpty() ? "no delivery"
                : deliveries.stream().map(ShareGroupMember.Delivery::toString).collect(Collectors.joining(", "));
    }
}
