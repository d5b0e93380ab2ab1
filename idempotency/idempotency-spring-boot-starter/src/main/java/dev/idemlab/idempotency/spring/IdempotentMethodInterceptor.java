package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentMethod;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs each {@code @Idempotent} method of a Spring bean through the coordinator: the key and the
 * fingerprint come from the call's arguments, and the rest of the advice chain (a
 * {@code @Transactional} advice ordered inside this one, then the method) runs only when the
 * coordinator decides that this call is the key's holder.
 *
 * <p>Only calls through the bean's proxy are advised: a method of the bean that calls
 * {@code this.charge(...)} calls the plain method, which is then not idempotent.
 *
 * <p>A {@link LocalEffect} method runs in a transaction that {@link LocalEffectTransactions} opens and
 * commits with the key's record; it is refused before any reservation when a transaction is active.
 *
 * <p>The coordinator is looked up on the first call, not when the advisor is made, so that the advisor
 * (which the auto-proxy creator makes early) does not pull the store and its connections forward.
 * Thread-safe.
 */
public final class IdempotentMethodInterceptor implements MethodInterceptor {

    private final IdempotentMethods plans;
    private final Supplier<IdempotencyCoordinator> coordinator;
    private final Supplier<LocalEffectTransactions> localEffects;

    IdempotentMethodInterceptor(IdempotentMethods plans, ObjectProvider<IdempotencyCoordinator> coordinator,
                                Supplier<LocalEffectTransactions> localEffects) {
        this.plans = plans;
        this.coordinator = coordinator::getObject;
        this.localEffects = localEffects;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopUtils.getTargetClass(target);
        Optional<IdempotentMethods.Advised> advised = plans.planOf(invocation.getMethod(), targetClass);
        if (advised.isEmpty()) {
            return invocation.proceed();
        }
        IdempotentMethod plan = advised.get().plan();
        IdempotentMethod.Invocation proceed = arguments -> proceed(invocation, arguments);
        if (!advised.get().localEffect()) {
            return plan.invoke(Objects.requireNonNull(coordinator.get(), "coordinator"), invocation.getArguments(),
                    proceed);
        }
        LocalEffectTransactions local = localEffects.get();
        if (local == null) {
            throw new IllegalStateException(IdempotentMethods.nameOf(plan.method()) + " is a @LocalEffect, but this "
                    + "advisor has no LocalEffectTransactions: make it with IdempotencyAspectAutoConfiguration "
                    + "(spring-jdbc and idempotency-postgres on the class path)");
        }
        // Before the coordinator, so that a refused call reserves nothing.
        local.refuseInsideTransaction(advised.get());
        return plan.invoke(Objects.requireNonNull(coordinator.get(), "coordinator"), invocation.getArguments(),
                proceed, local.around(advised.get()));
    }

    /** Proceeds down the chain with {@code arguments}, which carry the call's context. */
    private static Object proceed(MethodInvocation invocation, Object[] arguments) throws Exception {
        try {
            if (invocation instanceof ProxyMethodInvocation proxied) {
                // A clone: the call may proceed on the coordinator's executor, off the caller's chain.
                return proxied.invocableClone(arguments).proceed();
            }
            System.arraycopy(arguments, 0, invocation.getArguments(), 0, arguments.length);
            return invocation.proceed();
        } catch (Exception | Error thrown) {
            throw thrown;
        } catch (Throwable other) {
            throw new UndeclaredThrowableException(other);
        }
    }
}
