package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotentMethod;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
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

    /**
     * A planned method, whether its record is completed in its own transaction ({@link LocalEffect}), and
     * the transaction managers its {@code @Transactional} names, if it is one.
     */
    record Advised(IdempotentMethod plan, boolean localEffect, Set<String> transactionManagers) { }

    private final ConcurrentMap<Site, Optional<Advised>> plans = new ConcurrentHashMap<>();
    private volatile BeanFactory beans;

    /** The bean factory whose transaction attribute sources {@link LocalEffect} methods are checked against. */
    void beanFactory(BeanFactory beans) {
        this.beans = beans;
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
            return annotated.map(idempotent -> advised(idempotent, local, targetClass));
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

    private Advised advised(Method annotated, boolean local, Class<?> targetClass) {
        IdempotentMethod plan = IdempotentMethod.plan(annotated);
        if (!local) {
            return new Advised(plan, false, Set.of());
        }
        for (String needed : LOCAL_EFFECT_CLASSES) {
            if (!ClassUtils.isPresent(needed, IdempotentMethods.class.getClassLoader())) {
                throw new IllegalArgumentException("@LocalEffect " + nameOf(annotated) + ": needs spring-tx, "
                        + "spring-jdbc and dev.idemlab:idempotency-postgres on the class path (" + needed
                        + " is missing): the record is completed on the store's PostgreSQL, in the transaction "
                        + "manager's transaction");
            }
        }
        return new Advised(plan, true, LocalEffectRules.check(plan, targetClass, beans));
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
