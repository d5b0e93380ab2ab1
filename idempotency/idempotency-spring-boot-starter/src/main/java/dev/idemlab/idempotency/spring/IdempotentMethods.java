package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotentMethod;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The plans of the {@code @Idempotent} methods of Spring beans, made once per method and target
 * class by the core's {@link IdempotentMethod#plan}: the same planner as {@code Idempotency.proxy},
 * so a mistake (no key parameter, an unknown fingerprint path, a result that cannot be stored) fails
 * when the bean's proxy is created, naming the method.
 *
 * <p>The annotation is looked up on the bean class's own method first, then on the methods it
 * overrides or implements (superclasses, interfaces). {@link LocalEffect} is looked up on all of them
 * too, so it applies whichever declaration carries it ({@code @Idempotent} on an interface and
 * {@code @LocalEffect} on the implementation, or the reverse), and is checked by {@link LocalEffectRules};
 * a {@code @LocalEffect} with no {@code @Idempotent} on any declaration of its method fails the proxy.
 * Thread-safe.
 */
final class IdempotentMethods {

    /** What a {@link LocalEffect} method runs on; {@link LocalEffectRules} needs the first. */
    private static final String[] LOCAL_EFFECT_CLASSES = {
        "org.springframework.transaction.PlatformTransactionManager",
        "org.springframework.jdbc.datasource.DataSourceUtils",
        "dev.idemlab.idempotency.store.postgres.LocalEffects",
    };

    private record Site(Method method, Class<?> targetClass) { }

    /** What principal scoping needs: Spring Security's context. */
    static final String SECURITY_CONTEXT = "org.springframework.security.core.context.SecurityContextHolder";
    /** What following an active transaction needs: Spring's transaction synchronization. */
    private static final String SYNCHRONIZATION = "org.springframework.transaction.support.TransactionSynchronizationManager";

    /**
     * A planned method, whether its record is completed in its own transaction ({@link LocalEffect}), the
     * transaction managers its {@code @Transactional} names, if it is one, whether its keys are scoped per
     * principal ({@link PrincipalScope}: Spring Security is on the class path and the method is not a
     * {@link GlobalKey}), and whether its record follows a transaction active around the advice
     * ({@link OuterTransactionCompletion}: spring-tx is on the class path, the method returns its result
     * itself, and its own {@code @Transactional}, if any, joins that transaction).
     */
    record Advised(IdempotentMethod plan, boolean localEffect, Set<String> transactionManagers, boolean scoped,
                   boolean followsTransaction) { }

    private final ConcurrentMap<Site, Optional<Advised>> plans = new ConcurrentHashMap<>();
    private volatile BeanFactory beans;
    private volatile ClassLoader classLoader = IdempotentMethods.class.getClassLoader();

    /**
     * The bean factory whose transaction attribute sources the methods are checked against, and whose
     * class loader says whether Spring Security and spring-tx are on the application's class path.
     */
    void beanFactory(BeanFactory beans) {
        this.beans = beans;
        if (beans instanceof ConfigurableBeanFactory configurable && configurable.getBeanClassLoader() != null) {
            this.classLoader = configurable.getBeanClassLoader();
        }
    }

    /** The bean factory given to {@link #beanFactory}, or {@code null}. */
    BeanFactory beans() {
        return beans;
    }

    /**
     * The plan of {@code method} as called on {@code targetClass}, or empty when it is not idempotent.
     *
     * @throws IllegalArgumentException naming the method and the rule it breaks
     */
    Optional<Advised> planOf(Method method, Class<?> targetClass) {
        Site site = new Site(method, targetClass);
        Optional<Advised> known = plans.get(site);
        if (known != null) {
            return known;
        }
        return plans.computeIfAbsent(site, each -> {
            Method specific = mostSpecific(method, targetClass);
            boolean local = MergedAnnotations.from(specific, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                    .isPresent(LocalEffect.class) || method.isAnnotationPresent(LocalEffect.class);
            Optional<Method> annotated = annotated(method, specific, targetClass);
            if (local && annotated.isEmpty()) {
                throw new IllegalArgumentException("@LocalEffect " + nameOf(specific) + ": no declaration of the "
                        + "method carries @Idempotent, so nothing would reserve its key and the @LocalEffect would be "
                        + "ignored; put @Idempotent on it (or on the method it overrides or implements), or drop "
                        + "@LocalEffect");
            }
            boolean global = MergedAnnotations.from(specific, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                    .isPresent(GlobalKey.class) || method.isAnnotationPresent(GlobalKey.class);
            return annotated.map(idempotent -> advised(idempotent, local, global, targetClass));
        });
    }

    /** The {@link LocalEffect} methods planned so far. */
    List<Advised> localEffectPlans() {
        return plans.values().stream().flatMap(Optional::stream).filter(Advised::localEffect).distinct().toList();
    }

    /** The {@link LocalEffect} methods planned so far, as {@code Type.method} names. */
    List<String> localEffects() {
        return localEffectPlans().stream().map(advised -> nameOf(advised.plan().method())).distinct().sorted()
                .toList();
    }

    private Advised advised(Method annotated, boolean local, boolean global, Class<?> targetClass) {
        IdempotentMethod plan = IdempotentMethod.plan(annotated);
        boolean scoped = !global && ClassUtils.isPresent(SECURITY_CONTEXT, classLoader);
        if (scoped && plan.operation().length() > PrincipalScope.LONGEST_OPERATION) {
            throw new IllegalArgumentException("@Idempotent " + nameOf(annotated) + ": its operation has "
                    + plan.operation().length() + " characters, but a key scoped per principal adds 35 to it and an "
                    + "operation has at most 100, so an operation of a scoped method has at most "
                    + PrincipalScope.LONGEST_OPERATION + "; shorten it, or mark the method @GlobalKey if its keys are "
                    + "global on purpose");
        }
        if (!local) {
            boolean follows = !plan.async() && ClassUtils.isPresent(SYNCHRONIZATION, classLoader)
                    && !OuterTransactionCompletion.commitsApart(plan.method(), targetClass, beans);
            return new Advised(plan, false, Set.of(), scoped, follows);
        }
        for (String needed : LOCAL_EFFECT_CLASSES) {
            if (!ClassUtils.isPresent(needed, IdempotentMethods.class.getClassLoader())) {
                throw new IllegalArgumentException("@LocalEffect " + nameOf(annotated) + ": needs spring-tx, "
                        + "spring-jdbc and dev.idemlab:idempotency-postgres on the class path (" + needed
                        + " is missing): the record is completed on the store's PostgreSQL, in the transaction "
                        + "manager's transaction");
            }
        }
        return new Advised(plan, true, LocalEffectRules.check(plan, targetClass, beans), scoped, false);
    }

    /** {@code Type.method}, the way failures name a method. */
    static String nameOf(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

    /** The declaration of {@code method} that a call on {@code targetClass} runs. */
    private static Method mostSpecific(Method method, Class<?> targetClass) {
        return BridgeMethodResolver.findBridgedMethod(
                targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass));
    }

    /** The method, of the ones {@code method} resolves to on {@code targetClass}, that carries the annotation. */
    private static Optional<Method> annotated(Method method, Method specific, Class<?> targetClass) {
        if (specific.isAnnotationPresent(Idempotent.class)) {
            return Optional.of(specific);
        }
        Class<?> owner = targetClass == null ? specific.getDeclaringClass() : targetClass;
        for (Class<?> type = owner; type != null && type != Object.class; type = type.getSuperclass()) {
            Optional<Method> found = declared(type, specific);
            if (found.isPresent()) {
                return found;
            }
        }
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(owner)) {
            Optional<Method> found = declared(type, specific);
            if (found.isPresent()) {
                return found;
            }
        }
        return method.isAnnotationPresent(Idempotent.class) ? Optional.of(method) : Optional.empty();
    }

    private static Optional<Method> declared(Class<?> type, Method like) {
        try {
            Method candidate = type.getDeclaredMethod(like.getName(), like.getParameterTypes());
            return candidate.isAnnotationPresent(Idempotent.class) ? Optional.of(candidate) : Optional.empty();
        } catch (NoSuchMethodException absent) {
            return Optional.empty();
        }
    }
}
