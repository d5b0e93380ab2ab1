package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentMethod;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/**
 * The invocation handler behind {@code Idempotency.proxy}: each {@link Idempotent} method is planned
 * once by {@link IdempotentMethod#plan}, when the proxy is created, so that every mistake is found
 * then, naming the method; the Spring Boot starter's advice plans and runs methods the same way.
 * Thread-safe.
 */
public final class IdempotentProxy implements InvocationHandler {

    private final Class<?> type;
    private final Object target;
    private final IdempotencyCoordinator coordinator;
    private final Map<Method, IdempotentMethod> plans;
    private final Map<Method, Method> passedThrough = new java.util.concurrent.ConcurrentHashMap<>();

    private IdempotentProxy(Class<?> type, Object target, IdempotencyCoordinator coordinator,
                            Map<Method, IdempotentMethod> plans) {
        this.type = type;
        this.target = target;
        this.coordinator = coordinator;
        this.plans = plans;
    }

    /** See {@code Idempotency.proxy}. */
    public static <T> T create(Class<T> type, T target, IdempotencyCoordinator coordinator) {
        if (!type.isInterface()) {
            throw new IllegalArgumentException(type.getName() + " is not an interface: Idempotency.proxy wraps an "
                    + "interface, whose @Idempotent methods it runs through the coordinator");
        }
        Map<Method, IdempotentMethod> plans = new HashMap<>();
        for (Method method : type.getMethods()) {
            refuseTypesTheProxyCannotName(type, method);
            Idempotent idempotent = method.getAnnotation(Idempotent.class);
            if (idempotent != null && Modifier.isStatic(method.getModifiers())) {
                throw new IllegalArgumentException("@Idempotent " + type.getSimpleName() + "." + method.getName()
                        + " is static: a proxy only sees the methods it implements");
            }
            if (idempotent != null) {
                plans.put(method, IdempotentMethod.plan(method));
            }
        }
        if (plans.isEmpty()) {
            throw new IllegalArgumentException(type.getName() + " has no method annotated @Idempotent: "
                    + "a proxy of it would make nothing idempotent");
        }
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                new IdempotentProxy(type, target, coordinator, Map.copyOf(plans)));
        return type.cast(proxy);
    }

    /**
     * The JDK defines the proxy of a public interface in a module of its own, in another package, and
     * its methods cast each result to the method's return type and catch the exceptions it declares:
     * a type there that is not public fails the first call of that method with {@code IllegalAccessError}
     * (a parameter's type is only passed along, never named). The proxy of an interface that is not
     * public lives in the interface's package, where such types are visible.
     */
    private static void refuseTypesTheProxyCannotName(Class<?> type, Method method) {
        if (!Modifier.isPublic(type.getModifiers())) {
            return;
        }
        String where = (method.isAnnotationPresent(Idempotent.class) ? "@Idempotent " : "")
                + type.getSimpleName() + "." + method.getName();
        Class<?> result = elementOf(method.getReturnType());
        if (!visibleToTheProxy(result)) {
            throw new IllegalArgumentException(where + " returns " + result.getName() + ", which is not public: "
                    + rule(type, result));
        }
        for (Class<?> thrown : method.getExceptionTypes()) {
            if (!visibleToTheProxy(thrown)) {
                throw new IllegalArgumentException(where + " throws " + thrown.getName() + ", which is not public: "
                        + rule(type, thrown));
            }
        }
    }

    private static String rule(Class<?> type, Class<?> hidden) {
        return "the proxy of a public interface is a class in another package, which cannot name a type that is not "
                + "public in a method's result or throws clause (its first call would fail with IllegalAccessError); "
                + "make " + hidden.getSimpleName() + " public, or " + type.getSimpleName() + " package-private";
    }

    private static Class<?> elementOf(Class<?> type) {
        return type.isArray() ? elementOf(type.getComponentType()) : type;
    }

    /** Public, or a protected member class (which its class file declares public). */
    private static boolean visibleToTheProxy(Class<?> type) {
        int modifiers = type.getModifiers();
        return type.isPrimitive() || Modifier.isPublic(modifiers)
                || (type.isMemberClass() && Modifier.isProtected(modifiers));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        IdempotentMethod plan = plans.get(method);
        if (plan != null) {
            return plan.invoke(coordinator, args == null ? new Object[0] : args,
                    actual -> invokeTarget(plan.method(), target, actual));
        }
        if (method.getDeclaringClass() == Object.class) {
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "idempotent " + type.getName() + " over " + target;
                default:
                    break;
            }
        }
        Method accessible = passedThrough.computeIfAbsent(method, each -> {
            each.trySetAccessible(); // an interface that is not public, in a package open to this module
            return each;
        });
        return invokeTarget(accessible, target, args);
    }

    private static Object invokeTarget(Method method, Object target, Object[] args) throws Exception {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + method + " on " + target.getClass().getName()
                    + ": " + e.getMessage(), e);
        }
    }
}
