package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;

/**
 * Applies {@link IdempotentMethodInterceptor} to the {@code @Idempotent} methods of Spring beans.
 * Each method is planned when its bean's proxy is made, so a mistake in an annotation fails startup.
 *
 * <p><b>Order.</b> The advice must run outside {@code @Transactional}: its {@link #getOrder() order}
 * must be smaller than the transaction advisor's, which is {@link Ordered#LOWEST_PRECEDENCE} by
 * default. Then the coordinator reserves the key, the transaction runs and commits inside, and only
 * then is the result stored; a transaction that rolls back throws through the advice, which releases
 * the reservation, so a retry runs the method again. Ordered the other way, the advice finds the
 * method's transaction active and completes the record only after it commits, as it does for a
 * method called inside its caller's transaction ({@link OuterTransactionCompletion}); but a method whose
 * {@code @Transactional} starts a transaction of its own ({@code REQUIRES_NEW}) then has its result
 * stored before that commit, and a commit that fails leaves a completed record of a transaction that
 * never happened: the retry replays it. The default, {@link #DEFAULT_ORDER}, sits just above the
 * transaction advisor and below Spring Security's method authorization, so a caller is authorized
 * before a stored result is replayed to it.
 *
 * <p>A {@link LocalEffect} method goes further: its record is completed inside a transaction that the
 * advice opens itself, so the order above matters only in that such a method's own {@code @Transactional}
 * must run inside the advice (ordered the other way, every call of it is refused). That
 * {@code @Transactional} is read through the application's own {@code TransactionAttributeSource} beans
 * (the bean factory this advisor is made in), as its transaction advice reads it.
 *
 * <p>Thread-safe.
 */
public final class IdempotencyAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

    /** The advice's default order: higher precedence than {@code @Transactional}'s default. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private final transient IdempotentMethods plans = new IdempotentMethods();
    private final transient IdempotentMethodInterceptor advice;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return plans.planOf(method, targetClass).isPresent();
        }
    };

    /**
     * An advisor whose advice looks {@code coordinator} up on its first call, and has no
     * {@link LocalEffect} methods: one would fail on its first call.
     */
    public IdempotencyAdvisor(ObjectProvider<IdempotencyCoordinator> coordinator, int order) {
        this(coordinator, () -> null, order);
    }

    /**
     * An advisor whose advice looks {@code coordinator} up on its first call, and {@code localEffects}
     * on the first call of a {@link LocalEffect} method.
     */
    public IdempotencyAdvisor(ObjectProvider<IdempotencyCoordinator> coordinator,
                              Supplier<LocalEffectTransactions> localEffects, int order) {
        this.advice = new IdempotentMethodInterceptor(plans, coordinator, localEffects);
        setOrder(order);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        plans.beanFactory(beanFactory);
    }

    /** The {@link LocalEffect} methods planned so far (their beans' proxies were made), as {@code Type.method}. */
    List<String> localEffectMethods() {
        return plans.localEffects();
    }

    /** The {@link LocalEffect} methods planned so far, with what their {@code @Transactional} names. */
    List<IdempotentMethods.Advised> localEffectPlans() {
        return plans.localEffectPlans();
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }
}
