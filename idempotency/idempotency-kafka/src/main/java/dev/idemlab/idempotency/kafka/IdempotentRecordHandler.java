package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.InvalidIdempotencyKeyException;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.kafka.internal.RecordReading;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link RecordHandler} run through the idempotency coordinator, as the HTTP filter runs a request:
 * the record's key (a header, {@value #DEFAULT_KEY_HEADER} by default, or a function of the record)
 * and its fingerprint (named fields of the value, or the whole value) make the call; the first
 * delivery reserves the key and runs the handler; a redelivery that arrives while that first handling
 * runs (after a rebalance gave the record to another consumer, or a retry in this one) waits for it or
 * is skipped and retried ({@link RedeliveryPolicy}); one that arrives after it completed is a replay,
 * acknowledged without running the handler. The coordinator and its store are used unchanged.
 *
 * <p>Where the record's effect lives in the store's own database, {@link #inbox} writes it in the
 * transaction that completes the record's key ({@link TransactionalRecordHandler}): both commit or
 * neither does.
 *
 * <p>{@link #handle} says whether the record may be acknowledged; it never acknowledges anything
 * itself. {@link IdempotentConsumer} is the poll loop that turns those answers into offset commits;
 * a loop of the application's own must commit a record's offset only after an acknowledging
 * outcome, and never past a record that had none ({@link OffsetTracker} keeps that rule).
 *
 * <p>Bad input is refused with {@link InvalidRecordException}, naming the record and the rule: no key
 * where one is required, a key that breaks the key rule, a value the fingerprint cannot read. A key
 * reused with another payload is the coordinator's {@code IdempotencyKeyReuseException}. The handler
 * acknowledges neither: {@link IdempotentConsumer} commits no offset past such a record, and a share
 * consumer rejects it ({@link ShareAcknowledgement}), the broker archiving it.
 *
 * <p>Immutable and thread-safe when the handler, the key function and the value reader are.
 *
 * @param <K> the record's key type
 * @param <V> the record's value type
 * @param <T> the handler's result, stored for replays
 */
public final class IdempotentRecordHandler<K, V, T> {

    /** The header the key is read from unless another is named. */
    public static final String DEFAULT_KEY_HEADER = "Idempotency-Key";

    private final IdempotencyCoordinator coordinator;
    private final String operation;
    private final ResultCodec<T> codec;
    private final Function<ConsumerRecord<K, V>, ContextualAction<T, ? extends Exception>> actions;
    private final RedeliveryPolicy redelivery;
    private final RecordReading<K, V> reading;

    private IdempotentRecordHandler(Builder<K, V, T> builder) {
        this.coordinator = builder.coordinator;
        this.operation = builder.operation;
        this.codec = builder.codec;
        this.actions = builder.actions;
        this.redelivery = builder.redelivery;
        this.reading = new RecordReading<>(builder.keyHeader, builder.keyFunction, builder.keyRequired,
                builder.fingerprintFields, builder.valueReader);
    }

    /**
     * A builder for the handler of {@code operation} ({@code [A-Za-z0-9._-]{1,100}}, as every call's),
     * storing {@code handler}'s results with {@code codec}. Not thread-safe.
     */
    public static <K, V, T> Builder<K, V, T> builder(IdempotencyCoordinator coordinator, String operation,
                                                     ResultCodec<T> codec, RecordHandler<K, V, T> handler) {
        Objects.requireNonNull(handler, "handler");
        return new Builder<>(coordinator, operation, codec, record -> context -> handler.handle(record, context));
    }

    /**
     * A builder for the inbox of {@code operation}: each record's effect is written in the store's own
     * transaction, which also completes its key ({@link TransactionalRecordHandler}). The coordinator
     * must keep its records in the store whose database the actions write to. Not thread-safe.
     */
    public static <K, V, T> Builder<K, V, T> inbox(IdempotencyCoordinator coordinator, String operation,
                                                   ResultCodec<T> codec, TransactionalRecordHandler<K, V, T> handler) {
        Objects.requireNonNull(handler, "handler");
        return new Builder<>(coordinator, operation, codec, record -> Objects.requireNonNull(
                handler.actionFor(record), "the inbox handler gave no action"));
    }

    /**
     * Handles one delivery of {@code record}: runs the handler once per key, or replays.
     *
     * @return {@link RecordOutcome#HANDLED}, {@link RecordOutcome#REPLAYED} or {@link RecordOutcome#BYPASSED},
     *     each of which acknowledges the record; {@link RecordOutcome#IN_FLIGHT} when its first delivery
     *     is still being handled (SKIP, or a WAIT that ran out), which does not
     * @throws InvalidRecordException if the record breaks a rule (no key, a bad key, an unreadable value)
     * @throws Exception whatever the handler threw, unchanged; nothing is stored, the record is not
     *     acknowledged, and its next delivery runs the handler again. Also the coordinator's exceptions
     *     ({@code IdempotencyKeyReuseException}, {@code IdempotencyStoreUnavailableException} under
     *     FAIL_CLOSED, ...), none of which acknowledges the record
     */
    public RecordOutcome handle(ConsumerRecord<K, V> record) throws Exception {
        return process(record).outcome();
    }

    /**
     * As {@link #handle}, with the handler's result: fresh, or replayed from the first handling.
     *
     * @throws InvalidRecordException if the record breaks a rule
     * @throws Exception what {@link #handle} throws
     */
    public RecordResult<T> process(ConsumerRecord<K, V> record) throws Exception {
        Objects.requireNonNull(record, "record");
        String key = reading.keyOf(record, operation);
        Fingerprint fingerprint = reading.fingerprintOf(record, operation, key);
        IdempotentCall call;
        try {
            call = IdempotentCall.of(operation, key, fingerprint);
        } catch (InvalidIdempotencyKeyException e) {
            throw new InvalidRecordException(operation, key, record.topic(), record.partition(), record.offset(),
                    "its idempotency key breaks the key rule (" + e.getMessage() + ")", e);
        }
        IdempotentResult<T> result;
        try {
            result = coordinator.call(call, codec, actions.apply(record));
        } catch (IdempotencyInProgressException e) {
            return RecordResult.inFlight();
        }
        RecordOutcome outcome = result.outcome() == Outcome.BYPASSED ? RecordOutcome.BYPASSED
                : result.ranAction() ? RecordOutcome.HANDLED : RecordOutcome.REPLAYED;
        return new RecordResult<>(outcome, result.value());
    }

    /** The operation its records are handled as. */
    public String operation() {
        return operation;
    }

    /** What a redelivery meets while the first handling runs. */
    public RedeliveryPolicy redelivery() {
        return redelivery;
    }

    /** The coordinator it runs through. */
    public IdempotencyCoordinator coordinator() {
        return coordinator;
    }

    @Override
    public String toString() {
        return "IdempotentRecordHandler{operation=" + operation + ", redelivery=" + redelivery + ", " + reading + '}';
    }

    /** Builds an {@link IdempotentRecordHandler}. Not thread-safe. */
    public static final class Builder<K, V, T> {

        private final IdempotencyCoordinator coordinator;
        private final String operation;
        private final ResultCodec<T> codec;
        private final Function<ConsumerRecord<K, V>, ContextualAction<T, ? extends Exception>> actions;
        private RedeliveryPolicy redelivery;
        private String keyHeader = DEFAULT_KEY_HEADER;
        private Function<? super ConsumerRecord<K, V>, String> keyFunction;
        private boolean keyRequired = true;
        private List<String> fingerprintFields = List.of();
        private Function<? super V, ?> valueReader = value -> value;

        private Builder(IdempotencyCoordinator coordinator, String operation, ResultCodec<T> codec,
                        Function<ConsumerRecord<K, V>, ContextualAction<T, ? extends Exception>> actions) {
            this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
            this.operation = Objects.requireNonNull(operation, "operation");
            this.codec = Objects.requireNonNull(codec, "codec");
            this.actions = actions;
        }

        /**
         * What a redelivery meets while the first handling runs. Defaults to what the coordinator's
         * policy gives: {@link RedeliveryPolicy#WAIT} under {@code InFlightPolicy.WAIT}, {@link RedeliveryPolicy#SKIP}
         * under {@code RAISE}; naming one the coordinator's policy cannot give fails at {@link #build()}.
         */
        public Builder<K, V, T> redelivery(RedeliveryPolicy redelivery) {
            this.redelivery = Objects.requireNonNull(redelivery, "redelivery");
            return this;
        }

        /** Reads the key from this header (UTF-8); the last one wins where several are present. */
        public Builder<K, V, T> keyHeader(String header) {
            this.keyHeader = Objects.requireNonNull(header, "header");
            this.keyFunction = null;
            return this;
        }

        /** Reads the key with {@code function} instead of a header; a {@code null} answer means "no key". */
        public Builder<K, V, T> key(Function<? super ConsumerRecord<K, V>, String> function) {
            this.keyFunction = Objects.requireNonNull(function, "function");
            return this;
        }

        /**
         * Whether a record without a key is refused ({@code true}, the default) or handled without the
         * coordinator (counted as bypassed, acknowledged as {@link RecordOutcome#BYPASSED}).
         */
        public Builder<K, V, T> keyRequired(boolean required) {
            this.keyRequired = required;
            return this;
        }

        /**
         * Fingerprints these fields of the value (as {@code Fingerprint.ofNamed} reads a map, a record or,
         * with Jackson, a bean); fields that differ between honest redeliveries (a timestamp, a trace id)
         * are left out. With none named, the whole value is fingerprinted.
         */
        public Builder<K, V, T> fingerprintFields(String... fields) {
            this.fingerprintFields = List.of(fields);
            return this;
        }

        /**
         * Turns the value into what the fingerprint reads (a JSON string into a map, say); the value
         * itself by default. A reader that throws makes the record invalid.
         */
        public Builder<K, V, T> valueReader(Function<? super V, ?> reader) {
            this.valueReader = Objects.requireNonNull(reader, "reader");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the operation breaks its rule
         * @throws InvalidIdempotencyConfigException if the redelivery policy is one the coordinator's
         *     in-flight policy cannot give, or the key header is blank
         */
        public IdempotentRecordHandler<K, V, T> build() {
            IdempotentCall.of(operation, null, Fingerprint.ofFields(java.util.Map.of()));
            InFlightPolicy policy = coordinator.config().policy();
            RedeliveryPolicy given = policy == InFlightPolicy.WAIT ? RedeliveryPolicy.WAIT : RedeliveryPolicy.SKIP;
            if (redelivery == null) {
                redelivery = given;
            } else if (redelivery != given) {
                throw new InvalidIdempotencyConfigException("redelivery", redelivery, "redelivery " + redelivery
                        + " needs a coordinator under InFlightPolicy." + (redelivery == RedeliveryPolicy.WAIT ? "WAIT" : "RAISE")
                        + ", this one's is " + policy);
            }
            if (keyFunction == null && keyHeader.isBlank()) {
                throw new InvalidIdempotencyConfigException("keyHeader", keyHeader, "the key header must not be blank");
            }
            return new IdempotentRecordHandler<>(this);
        }
    }
}
