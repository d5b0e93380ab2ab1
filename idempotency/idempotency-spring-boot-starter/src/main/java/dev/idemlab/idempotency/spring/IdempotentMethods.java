package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotentMethod;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The plans of the {@code @Idempotent} methods of Spring beans, made once per method and target
 * class by the core's {@link IdempotentMethod#plan}: the same planner as {@code Idempotency.proxy},
 * so a mistake (no key parameter, an unknown fingerprint path, a result that cannot be stored) fails
 * when the bean's proxy is created, naming the method.
 *
 * <p>The annotation is looked up on the bean class's own method first, then on the methods it
 * overrides or implements (superclasses, interfaces); {@link LocalEffect} is read beside it, on the same
 * declaration, and checked by {@link LocalEffectRules}. Thread-safe.
 */
final class IdempotentMethods {

    /** What a {@link LocalEffect} method runs on; {@link LocalEffectRules} needs the first. */
    private static final String[] LOCAL_EFFECT_CLASSES = {
        "org.springframework.transaction.PlatformTransactionManager",
        "org.springframework.jdbc.datasource.DataSourceUtils",
        "dev.idemlab.idempotency.store.postgres.LocalEffects",
    };

    private record Site(Method method, Class<?> targetClass) { }

    /** A planned method, and whether its record is completed in its own transaction ({@link LocalEffect}). */
    record Advised(IdempotentMethod plan, boolean localEffect) { }

    private final ConcurrentMap<Site, Optional<Advised>> plans = new ConcurrentHashMap<>();

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
        return plans.computeIfAbsent(site, each -> annotated(method, targetClass)
                .map(annotated -> advised(annotated, targetClass)));
    }

    /** The {@link LocalEffect} methods planned so far, as {@code Type.method} names. */
    List<String> localEffects() {
        return plans.values().stream().flatMap(Optional::stream).filter(Advised::localEffect)
                .map(advised -> nameOf(advised.plan().method())).distinct().sorted().toList();
    }

    private static Advised advised(Method annotated, Class<?> targetClass) {
        IdempotentMethod plan = IdempotentMethod.plan(annotated);
        boolean local = annotated.isAnnotationPresent(LocalEffect.class);
        if (local) {
            for (String needed : LOCAL_EFFECT_CLASSES) {
                if (!ClassUtils.isPresent(needed, IdempotentMethods.class.getClassLoader())) {
                    throw new IllegalArgumentException("@LocalEffect " + nameOf(annotated) + ": needs spring-tx, "
                            + "spring-jdbc and dev.idemlab:idempotency-postgres on the class path (" + needed
                            + " is missing): the record is completed on the store's PostgreSQL, in the transaction "
                            + "manager's transaction");
                }
            }
            LocalEffectRules.check(plan, targetClass);
        }
        return new Advised(plan, local);
    }

    /** {@code Type.method}, the way failures name a method. */
    static String nameOf(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

    /** The method, of the ones {@code method} resolves to on {@code targetClass}, that carries the annotation. */
    private static Optional<Method> annotated(Method method, Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(
                targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass));
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
