package dev.idemlab.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method of an interface idempotent under the key its {@link IdempotencyKey} parameter
 * carries, once the interface is wrapped by {@link Idempotency#proxy}: the coordinator reserves the
 * key, runs the method once, stores its result and replays it to every retry with the same key and
 * fingerprint; the same key with another fingerprint is refused ({@link IdempotencyKeyReuseException}).
 *
 * <p>The result is stored by {@link ResultCodec#json} of the method's return type (Jackson on the class
 * path); a method that returns nothing is refused, but for a message listener's (Spring Kafka's
 * {@code @KafkaListener}), whose redelivery needs no result; a method returning {@code CompletableFuture<R>} or {@code CompletionStage<R>} runs through
 * {@link IdempotencyCoordinator#callAsync} and stores {@code R}; cancelling the stage it returns is
 * cancelling that call: {@code true} means the method never runs, and once it runs a cancel is refused. A parameter of type
 * {@link IdempotencyContext} receives the call's context (the fencing number, the downstream key to
 * pass on); whatever the caller passed there is ignored. Everything else the proxy checks when it is
 * created, naming the method and the rule.
 *
 * <pre>{@code
 * interface Payments {
 *     @Idempotent(operation = "payment.charge", fingerprint = {"request.orderId", "request.amount"})
 *     Charge charge(@IdempotencyKey String key, ChargeRequest request, IdempotencyContext context);
 * }
 * Payments payments = Idempotency.proxy(Payments.class, new ProviderPayments(provider), coordinator);
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {

    /** The operation the key is scoped to, as in {@link IdempotentCall#operation()}. */
    String operation();

    /**
     * What makes the request's fingerprint: parameter names ({@code "amount"}), or paths into a
     * parameter ({@code "request.amount"}: a record component, a bean getter or public field, or a map
     * entry, one level per dot). Names need the interface compiled with {@code -parameters}. Empty:
     * every parameter but the key and the context, by name; on a message listener's method only the
     * message's content (its {@code @Payload}, and parameters with no annotation that are not the
     * framework's), never a header that differs between deliveries of one record.
     */
    String[] fingerprint() default {};

    /**
     * What a call whose {@link IdempotencyKey} argument is {@code null} does. {@link NullKey#RUN} (the
     * default, for callers that make idempotency optional) runs the method without any reservation, as
     * the coordinator runs a call without a key: counted as {@link Outcome#BYPASSED} and logged at WARN
     * once per method, naming it, so that a caller that forgot its key is seen. {@link NullKey#REFUSE}
     * throws {@link InvalidIdempotencyKeyException} (HTTP 400) before anything runs: for a method whose
     * effect must never run twice (a charge), where a missing key is the caller's bug.
     */
    NullKey nullKey() default NullKey.RUN;

    /** What a call with a {@code null} key does: see {@link Idempotent#nullKey()}. */
    enum NullKey {
        /** Run the method unguarded: counted as {@link Outcome#BYPASSED} and logged once per method. */
        RUN,
        /** Refuse the call with {@link InvalidIdempotencyKeyException} (HTTP 400); nothing runs. */
        REFUSE
    }
}
