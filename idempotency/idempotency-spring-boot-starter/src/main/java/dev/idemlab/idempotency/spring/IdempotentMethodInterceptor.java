package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentMethod;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

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
 * commits with the key's record; it is refused before any reservation when a transaction is active. Any
 * other method called inside an active transaction has its record completed once that transaction
 * commits, and released if it rolls back ({@link OuterTransactionCompletion}). With Spring Security on the
 * class path, a method's keys are scoped per principal unless it is a {@link GlobalKey}
 * ({@link PrincipalScope}).
 *
 * <p>The coordinator is looked up on the first call, not when the advisor is made, so that the advisor
 * (which the auto-proxy creator makes early) does not pull the store and its connections forward.
 * Thread-safe.
 */
public final class IdempotentMethodInterceptor implements MethodInterceptor {

    private final IdempotentMethods plans;
    private final Supplier<IdempotencyCoordinator> coordinator;
    private final Supplier<LocalEffectTransactions> localEffects;
    private final Supplier<IdempotencyStore> store;

    IdempotentMethodInterceptor(IdempotentMethods plans, ObjectProvider<IdempotencyCoordinator> coordinator,
                                Supplier<LocalEffectTransactions> localEffects) {
        this.plans = plans;
        this.coordinator = coordinator::getObject;
        this.localEffects = localEffects;
        // Looked up on the first call inside a transaction, then kept: not when the advisor is made.
        this.store = SingletonSupplier.of(() -> plans.beans() == null ? null
                : plans.beans().getBeanProvider(IdempotencyStore.class).getIfUnique());
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
        IdempotencyCoordinator application = Objects.requireNonNull(coordinator.get(), "coordinator");
        if (!advised.get().localEffect()) {
            boolean follows = advised.get().followsTransaction() && OuterTransactionCompletion.active();
            return plan.invoke(advised(advised.get(), application, follows), invocation.getArguments(), proceed,
                    follows ? afterTransaction(advised.get()) : UnaryOperator.identity());
        }
        LocalEffectTransactions local = localEffects.get();
        if (local == null) {
            throw new IllegalStateException(IdempotentMethods.nameOf(plan.method()) + " is a @LocalEffect, but this "
                    + "advisor has no LocalEffectTransactions: make it with IdempotencyAspectAutoConfiguration "
                    + "(spring-jdbc and idempotency-postgres on the class path)");
        }
        // Before the coordinator, so that a refused call reserves nothing.
        local.refuseInsideTransaction(advised.get());
        return plan.invoke(advised(advised.get(), application, false), invocation.getArguments(), proceed,
                local.around(advised.get()));
    }

    /**
     * The coordinator as this call sees it: moved to the calling principal's scope for a scoped method
     * with one, and answering a key pending in the active transaction for a method whose record follows it.
     */
    private static IdempotencyCoordinator advised(IdempotentMethods.Advised advised, IdempotencyCoordinator coordinator,
                                                  boolean followsTransaction) {
        String operation = advised.scoped() ? PrincipalScope.operationOf(advised.plan().operation()) : null;
        boolean moved = operation != null && !operation.equals(advised.plan().operation());
        return moved || followsTransaction
                ? new AdvisedCallCoordinator(coordinator, moved ? operation : null, followsTransaction) : coordinator;
    }

    /**
     * The action of a method that follows the transaction active on the caller's thread: its record is
     * completed after that transaction commits, and released if it rolls back ({@link OuterTransactionCompletion}).
     */
    private UnaryOperator<ContextualAction<Object, Exception>> afterTransaction(IdempotentMethods.Advised advised) {
        String name = IdempotentMethods.nameOf(advised.plan().method());
        IdempotencyStore store = this.store.get();
        if (store == null) {
            throw new IllegalStateException("@Idempotent " + name + " was called inside an active transaction, so its "
                    + "record must be completed after that transaction commits, on the store the coordinator uses; "
                    + "but the application has no single IdempotencyStore bean to complete it on. Define the store as "
                    + "a bean, or call the method outside the transaction");
        }
        return OuterTransactionCompletion.around(store, name);
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
