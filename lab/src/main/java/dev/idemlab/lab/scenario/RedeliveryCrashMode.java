package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.kafka.RecordHandler;
import dev.idemlab.idempotency.kafka.RedeliveryPolicy;
import dev.idemlab.idempotency.kafka.TransactionalRecordHandler;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.PaymentProvider;

import java.util.List;
import java.util.Locale;

/**
 * How the consumers of the crash table ({@link RedeliveryCrashScenario}) protect the charge record: the
 * modes the redelivery table compares, each built the same way for the consumer in the child JVM (the
 * one killed) and the one in the lab's JVM (the one the record is redelivered to), so that both take the
 * same path. The handler calls {@link Boundaries#reached} where the killed consumer stops; the last
 * boundary, {@link #COMPLETED}, is the poll loop's (after the handling returned, before the commit).
 */
enum RedeliveryCrashMode {

    /** The consumers' result cache: look the record up, charge, write the processed row. */
    PROCESSED_TABLE("a processed-messages table written after handling", LabPolicy.RUN, false, false),
    /** The adapter: the record's key reserved with a lease before the charge, completed after it. */
    ADAPTER("the adapter, redelivery WAIT", LabPolicy.WAIT, false, false),
    /** The adapter, the context's downstream key passed to a provider that deduplicates on it. */
    ADAPTER_DOWNSTREAM_KEY("the adapter with the downstream key, provider deduplicating", LabPolicy.WAIT, true, false),
    /** The inbox: the order row written in the transaction that completes the record's key. */
    INBOX("the inbox on PostgreSQL, order row and record in one transaction", LabPolicy.WAIT, false, true),
    /** The inbox, the context's downstream key passed to a provider that deduplicates on it. */
    INBOX_DOWNSTREAM_KEY("the inbox with the downstream key, provider deduplicating", LabPolicy.WAIT, true, true);

    /** Each delivery of the record, as its value is read: not a boundary, a consumer never stops there. */
    static final String DELIVERED = "record_delivered";
    /** Inside the handler, before the charge (the adapter's reservation is taken by then). */
    static final String RECEIVED = "record_received";
    /**
     * The provider answered; the processed row or the completion not yet written (in the inbox, the order
     * row written in its transaction, which has not committed).
     */
    static final String CHARGED = "charge_created";
    /** The handling returned (processed row or completion written), the offset not yet committed. */
    static final String COMPLETED = "record_completed";
    /** The boundaries in the order a consumer reaches them. */
    static final List<String> BOUNDARIES = List.of(RECEIVED, CHARGED, COMPLETED);

    /** Where a consumer has got to; the killed one's stops there until it is killed. */
    @FunctionalInterface
    interface Boundaries {
        void reached(String boundary);
    }

    final String label;
    final LabPolicy policy;
    final boolean downstreamKey;
    final boolean inbox;

    RedeliveryCrashMode(String label, LabPolicy policy, boolean downstreamKey, boolean inbox) {
        this.label = label;
        this.policy = policy;
        this.downstreamKey = downstreamKey;
        this.inbox = inbox;
    }

    /** {@code processed-table}, as the command line spells it. */
    String option() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The mode spelled {@code option} on the command line, or {@code null}. */
    static RedeliveryCrashMode fromOption(String option) {
        for (RedeliveryCrashMode mode : values()) {
            if (mode.option().equals(option)) {
                return mode;
            }
        }
        return null;
    }

    /** Whether a crash after the charge is closed: the provider deduplicates the redelivery's charge. */
    boolean mitigated() {
        return downstreamKey;
    }

    /**
     * The charge record's handler through {@code coordinator}: the charge at {@code provider} (with the
     * context's downstream key where the mode passes it), in the inbox's transaction with its order row
     * where the mode is the inbox.
     */
    IdempotentRecordHandler<String, String, Charge> handler(IdempotencyCoordinator coordinator, PaymentProvider provider,
                                                           InboxOrders orders, Boundaries boundaries) {
        RecordHandler<String, String, Charge> charge = (record, context) -> {
            boundaries.reached(RECEIVED);
            return provider.charge(ScenarioSettings.ORDER_ID, ScenarioSettings.AMOUNT,
                    downstreamKey ? context.downstreamKey() : null);
        };
        IdempotentRecordHandler.Builder<String, String, Charge> builder = !inbox
                ? IdempotentRecordHandler.builder(coordinator, ChargeClient.OPERATION, ChargeClient.CHARGE,
                        (record, context) -> {
                            Charge made = charge.handle(record, context);
                            boundaries.reached(CHARGED);
                            return made;
                        })
                : IdempotentRecordHandler.inbox(coordinator, ChargeClient.OPERATION, ChargeClient.CHARGE,
                        (TransactionalRecordHandler<String, String, Charge>) record -> orders.local.inTransaction(
                                (connection, context) -> {
                                    Charge made = charge.handle(record, context);
                                    orders.insert(connection, made);
                                    // killed here, the order row is written but not committed, nor the key completed
                                    boundaries.reached(CHARGED);
                                    return made;
                                }));
        return builder.redelivery(RedeliveryPolicy.WAIT)
                .valueReader(value -> {
                    boundaries.reached(DELIVERED);
                    return value;
                })
                .build();
    }
}
