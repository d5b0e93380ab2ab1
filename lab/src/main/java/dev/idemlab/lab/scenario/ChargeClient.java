package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.Idempotency;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;

import java.util.Locale;
import java.util.Map;

/**
 * A client of the payment API: it charges an order through the coordinator with an idempotency
 * key, and passes a key downstream as {@link Downstream} says. Records each call on the scenario's timeline.
 * {@link #through} makes it charge through {@code Idempotency.proxy} instead ({@link CallThrough#PROXY}).
 */
final class ChargeClient {

    /** What the action passes to the provider besides order and amount. */
    enum Downstream {
        /** The client's own key, no fence: the post's scenarios. */
        CLIENT_KEY,
        /** Nothing: the provider cannot tell a retry from a new charge. */
        NONE,
        /** The coordinator's downstream key and, under a reservation, its fencing number. */
        CONTEXT_KEY,
        /** No key, but the fencing number under a reservation. */
        FENCE_ONLY
    }

    static final String OPERATION = "payment.charge";
    /** The outcome of a call through the proxy that returned: its caller sees no more than the value. */
    static final String PROXY_RETURNED = "returned";
    /** How a charge is stored for replay unless a scenario says otherwise: whole, as JSON. */
    static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    private final IdempotencyCoordinator coordinator;
    private final PaymentProvider provider;
    private final Timeline timeline;
    private final Downstream downstream;
    private final ResultCodec<Charge> codec;
    /** The annotated interface on {@code Idempotency.proxy}, or {@code null} to call the coordinator directly. */
    private final AnnotatedCharges proxied;

    ChargeClient(IdempotencyCoordinator coordinator, PaymentProvider provider, Timeline timeline) {
        this(coordinator, provider, timeline, Downstream.CLIENT_KEY);
    }

    ChargeClient(IdempotencyCoordinator coordinator, PaymentProvider provider, Timeline timeline, Downstream downstream) {
        this(coordinator, provider, timeline, downstream, CHARGE);
    }

    /** A client whose results are stored by {@code codec} (the whole charge as JSON, or a reference to it). */
    ChargeClient(IdempotencyCoordinator coordinator, PaymentProvider provider, Timeline timeline, Downstream downstream,
                 ResultCodec<Charge> codec) {
        this(coordinator, provider, timeline, downstream, codec, null);
    }

    private ChargeClient(IdempotencyCoordinator coordinator, PaymentProvider provider, Timeline timeline,
                         Downstream downstream, ResultCodec<Charge> codec, AnnotatedCharges proxied) {
        this.coordinator = coordinator;
        this.provider = provider;
        this.timeline = timeline;
        this.downstream = downstream;
        this.codec = codec;
        this.proxied = proxied;
    }

    /**
     * This client, charging as {@code callThrough} says: directly, or through {@link AnnotatedCharges} on
     * {@code Idempotency.proxy} over the same coordinator, whose action sends the provider the same request.
     *
     * @throws CannotStageException under {@link LabPolicy#RUN} through the proxy (the result cache is the
     *     lab's, not a policy of the library's coordinator), or when results are stored by a codec of the
     *     scenario's own (the proxy's codec comes from the method's return type)
     */
    ChargeClient through(CallThrough callThrough, LabPolicy policy) {
        if (callThrough == CallThrough.COORDINATOR) {
            return this;
        }
        if (policy == LabPolicy.RUN) {
            throw new CannotStageException(CallThrough.NO_PROXY_FOR_THE_RESULT_CACHE);
        }
        if (codec != CHARGE) {
            throw new CannotStageException("through the proxy a result is stored by the codec of the method's return "
                    + "type (the whole charge as JSON); this scenario stores it with a codec of its own");
        }
        AnnotatedCharges direct = (key, orderId, amount, context) ->
                provider.charge(request(context, key, orderId, amount));
        return new ChargeClient(coordinator, provider, timeline, downstream, codec,
                Idempotency.proxy(AnnotatedCharges.class, direct, coordinator));
    }


    /**
     * Runs one full cycle (fingerprint, reserve, charge, encode, complete, replay) through a
     * throwaway coordinator, provider and key on the same store, so that class loading and the
     * store client's first round trips do not land inside the timed race. Nothing of it is reported.
     */
    static void warmUp(ScenarioContext context, IdempotencyStore store, LabPolicy policy) {
        FakePaymentProvider scratch = FakePaymentProvider.builder().latency(java.time.Duration.ZERO).build();
        IdempotencyCoordinator coordinator = context.coordinator(store, policy);
        ChargeClient client = new ChargeClient(coordinator, scratch, new Timeline())
                .through(context.callThrough(), policy);
        String key = "warm-up-" + java.util.UUID.randomUUID();
        client.charge("warm-up", key, ScenarioSettings.AMOUNT);
        client.charge("warm-up", key, ScenarioSettings.AMOUNT);
    }

    /** Starts the scenario's clock now: every time recorded is from here. */
    void startClock() {
        timeline.restart();
    }

    /** Sends one charge as caller {@code name} and records what came back; never throws. */
    CallerResult charge(String name, String key, long amount) {
        return charge(name, OPERATION, key, amount);
    }

    /** Sends one charge under {@code operation} as caller {@code name}; never throws. */
    CallerResult charge(String name, String operation, String key, long amount) {
        return charge(name, operation, key, ScenarioSettings.ORDER_ID, amount);
    }

    /** Sends one charge of {@code orderId} under {@code operation} as caller {@code name}; never throws. */
    CallerResult charge(String name, String operation, String key, String orderId, long amount) {
        if (proxied != null && !operation.equals(OPERATION)) {
            throw new IllegalStateException("through the proxy every charge is " + OPERATION + ", the operation "
                    + "AnnotatedCharges declares; asked for " + operation);
        }
        // The store's and provider's timeline entries name the caller by its thread.
        Thread thread = Thread.currentThread();
        String threadName = thread.getName();
        thread.setName(name);
        try {
            return chargeAs(name, operation, key, orderId, amount);
        } finally {
            thread.setName(threadName);
        }
    }

    private CallerResult chargeAs(String name, String operation, String key, String orderId, long amount) {
        long start = timeline.nowMs();
        timeline.record(name, Timeline.COORDINATOR, (operation.equals(OPERATION) ? "charge " : operation + " ")
                + orderId + " " + amount + ", key " + key, false);
        String response;
        String outcome;
        try {
            if (proxied != null) {
                // A proxy hands its caller the value alone: how the coordinator produced it is not the caller's to see.
                response = proxied.charge(key, orderId, amount, null).id();
                outcome = PROXY_RETURNED;
            } else {
                IdempotentCall call = IdempotentCall.of(operation, key,
                        Fingerprint.ofFields(Map.of("order_id", orderId, "amount", amount)));
                IdempotentResult<Charge> result = coordinator.call(call, codec,
                        context -> provider.charge(request(context, key, orderId, amount)));
                response = result.value().id();
                outcome = result.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-');
            }
        } catch (RuntimeException e) {
            response = e.getClass().getSimpleName();
            outcome = "error";
        }
        timeline.record(Timeline.COORDINATOR, name, response + ("error".equals(outcome) ? "" : " (" + outcome + ")"), true);
        return new CallerResult(name, start, timeline.nowMs(), response, outcome, provider.chargeCount(),
                coordinator.stats().totalStorageErrors());
    }

    private ChargeRequest request(dev.idemlab.idempotency.IdempotencyContext context, String key, String orderId,
                                  long amount) {
        ChargeRequest request = switch (downstream) {
            case CLIENT_KEY -> ChargeRequest.of(orderId, amount, key);
            case NONE, FENCE_ONLY -> ChargeRequest.of(orderId, amount);
            case CONTEXT_KEY -> ChargeRequest.of(orderId, amount, context.downstreamKey());
        };
        boolean fenced = downstream == Downstream.CONTEXT_KEY || downstream == Downstream.FENCE_ONLY;
        return fenced && context.reserved() ? request.withFence(context.fence()) : request;
    }
}
