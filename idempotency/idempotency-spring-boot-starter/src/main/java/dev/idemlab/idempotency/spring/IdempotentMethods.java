package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotentMethod;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
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
 * overrides or implements (superclasses, interfaces). Thread-safe.
 */
final class IdempotentMethods {

    private record Site(Method method, Class<?> targetClass) { }

    private final ConcurrentMap<Site, Optional<IdempotentMethod>> plans = new ConcurrentHashMap<>();

    /**
     * The plan of {@code method} as called on {@code targetClass}, or empty when it is not idempotent.
     *
     * @throws IllegalArgumentException naming the method and the rule it breaks
     */
    Optional<IdempotentMethod> planOf(Method method, Class<?> targetClass) {
        Site site = new Site(method, targetClass);
        Optional<IdempotentMethod> known = plans.get(site);
        if (known != null) {
            return known;
        }
        return plans.computeIfAbsent(site, each -> annotated(method, targetClass).map(IdempotentMethod::plan));
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
