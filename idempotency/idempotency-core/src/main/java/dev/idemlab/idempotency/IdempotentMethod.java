package dev.idemlab.idempotency;

import dev.idemlab.idempotency.internal.MethodPlan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * One {@link Idempotent} method, planned once: which parameter carries the key, which receives the
 * {@link IdempotencyContext}, the paths its fingerprint reads and the codec of its result. Whatever
 * wraps the method calls {@link #invoke} with the call's arguments and a way to reach the method;
 * {@link Idempotency#proxy} does so with a JDK proxy, the Spring Boot starter with a method advice,
 * so both read the annotation alike and report the same mistakes.
 *
 * <p>A call whose key argument is {@code null} follows {@link Idempotent#nullKey()}: refused before
 * anything runs, or run without a reservation, counted by the coordinator as {@link Outcome#BYPASSED}
 * and logged at WARN the first time for this plan (once per method, not per call: a caller that never
 * passes a key would otherwise fill the log), so that a forgotten key is seen rather than silently
 * unguarded.
 *
 * <p>Thread-safe: plan a method once and share the plan. Its only state is whether it has logged a
 * call without a key.
 */
public final class IdempotentMethod {

    private static final Logger LOG = LoggerFactory.getLogger(IdempotentMethod.class);

    /**
     * How the planned method is reached for one call, once the coordinator decided that it runs: the
     * JDK proxy calls the target reflectively, an advice proceeds down its chain. Called at most once
     * per {@link #invoke}, on the caller's thread for a synchronous method and on the coordinator's
     * executor for one that returns a stage.
     */
    @FunctionalInterface
    public interface Invocation {

        /**
         * Calls the method with {@code arguments}: the caller's, with the call's context in the
         * {@link IdempotencyContext} parameter.
         *
         * @return what the method returned
         * @throws Exception whatever the method threw, unchanged
         */
        Object proceed(Object[] arguments) throws Exception;
    }

    private final MethodPlan plan;
    private final Idempotent.NullKey nullKey;
    private final AtomicBoolean nullKeyLogged = new AtomicBoolean();

    private IdempotentMethod(MethodPlan plan, Idempotent.NullKey nullKey) {
        this.plan = plan;
        this.nullKey = nullKey;
    }

    /**
     * Plans {@code method}, which carries {@link Idempotent}.
     *
     * @throws IllegalArgumentException naming the method and the rule, when it is not annotated, has
     *     no or several {@link IdempotencyKey} parameters, a key that is not a {@code String}, a
     *     fingerprint entry that names no parameter (or parameters whose names were not compiled in),
     *     a path into a record or bean that it lacks, or a return type whose result cannot be stored
     *     ({@code void}, a type with type parameters, an interface or abstract class)
     */
    public static IdempotentMethod plan(Method method) {
        Objects.requireNonNull(method, "method");
        Idempotent idempotent = method.getAnnotation(Idempotent.class);
        if (idempotent == null) {
            throw new IllegalArgumentException(method.getDeclaringClass().getSimpleName() + "." + method.getName()
                    + " carries no @Idempotent: only an annotated method has an operation and a key to plan");
        }
        return new IdempotentMethod(MethodPlan.of(method, idempotent), idempotent.nullKey());
    }

    /** The method this plan is for. */
    public Method method() {
        return plan.method();
    }

    /** The operation its records are scoped to. */
    public String operation() {
        return plan.operation();
    }

    /**
     * Runs one call through {@code coordinator}: reads the key and the fingerprint from
     * {@code arguments}, and either replays the stored result or calls {@code invocation} (at most
     * once) and stores what it returned. A method returning a stage gets a {@code CompletableFuture}
     * back at once, completed by {@link IdempotencyCoordinator#callAsync}.
     *
     * @param arguments the caller's arguments, which are not modified
     * @return the method's result, fresh or replayed (a stage for a method that returns one)
     * @throws Exception whatever {@code invocation} threw, unchanged (nothing is stored then), or what
     *     {@link IdempotencyCoordinator#execute} throws
     * @throws InvalidIdempotencyKeyException when the key argument is {@code null} and the method says
     *     {@link Idempotent.NullKey#REFUSE}; nothing ran
     */
    public Object invoke(IdempotencyCoordinator coordinator, Object[] arguments, Invocation invocation)
            throws Exception {
        return invoke(coordinator, arguments, invocation, UnaryOperator.identity());
    }

    /**
     * Runs one call as {@link #invoke(IdempotencyCoordinator, Object[], Invocation)} does, except that the
     * coordinator runs what {@code around} makes of the method's action. A wrapper whose method writes
     * its effect in the store's own database returns a {@link dev.idemlab.idempotency.spi.TransactionalAction}
     * that runs the action in a transaction in which the key's record is completed too (the Spring Boot
     * starter's {@code @LocalEffect} does); it must run the action it was given at most once.
     *
     * @param around called once per call with the method's action; returns the action to run
     * @throws Exception as {@link #invoke(IdempotencyCoordinator, Object[], Invocation)} does
     */
    public Object invoke(IdempotencyCoordinator coordinator, Object[] arguments, Invocation invocation,
                         UnaryOperator<ContextualAction<Object, Exception>> around) throws Exception {
        Objects.requireNonNull(coordinator, "coordinator");
        Objects.requireNonNull(invocation, "invocation");
        Objects.requireNonNull(around, "around");
        Object[] copied = arguments.clone();
        if (plan.keyOf(copied) == null) {
            withoutKey();
        }
        return plan.run(coordinator, copied, invocation, around);
    }

    /** What {@link Idempotent.NullKey} says of a call without a key: refuse it, or log the first one and run. */
    private void withoutKey() {
        String name = plan.method().getDeclaringClass().getSimpleName() + "." + plan.method().getName();
        if (nullKey == Idempotent.NullKey.REFUSE) {
            throw new InvalidIdempotencyKeyException(plan.operation(), null, "@Idempotent " + name + " refuses "
                    + "a null @IdempotencyKey (nullKey = REFUSE): without a key the call would run unguarded, "
                    + "and a retry would run it again");
        }
        if (nullKeyLogged.compareAndSet(false, true)) {
            LOG.warn("@Idempotent {} (operation {}) was called with a null @IdempotencyKey: it ran without "
                    + "idempotency, so a retry runs it again (counted as BYPASSED; logged once per method). "
                    + "Pass a key, or set @Idempotent(nullKey = REFUSE) to refuse such calls",
                    name, plan.operation());
        }
    }

    /** Whether the method returns a stage, so that it runs through {@link IdempotencyCoordinator#callAsync}. */
    public boolean async() {
        return plan.async();
    }

    @Override
    public String toString() {
        return "@Idempotent " + plan.method() + " (operation " + plan.operation() + ")";
    }
}
