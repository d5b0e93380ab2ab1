package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentMethod;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;

/**
 * The plan of one {@link Idempotent} method behind {@link IdempotentMethod}: its key, its context,
 * its fingerprint's paths and its codec, found once so that every mistake is reported then, naming
 * the method; a call only reads its arguments along those paths. Immutable and thread-safe.
 */
public record MethodPlan(Method method, String operation, int keyIndex, int contextIndex, List<Path> fingerprint,
                         ResultCodec<Object> codec, boolean async) {

    /** Plans {@code method}; see {@code IdempotentMethod.plan} for what it refuses. */
    public static MethodPlan of(Method method, Idempotent idempotent) {
        method.trySetAccessible();
        String where = "@Idempotent " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        Parameter[] parameters = method.getParameters();
        int key = -1;
        int context = -1;
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].isAnnotationPresent(IdempotencyKey.class)) {
                if (key >= 0) {
                    throw new IllegalArgumentException(where + ": two parameters carry @IdempotencyKey; "
                            + "a call has one key");
                }
                if (parameters[i].getType() != String.class) {
                    throw new IllegalArgumentException(where + ": the @IdempotencyKey parameter is a "
                            + parameters[i].getType().getSimpleName() + "; a key is a String");
                }
                key = i;
            }
            if (parameters[i].getType() == IdempotencyContext.class) {
                if (context >= 0) {
                    throw new IllegalArgumentException(where + ": two IdempotencyContext parameters");
                }
                context = i;
            }
        }
        if (key < 0) {
            throw new IllegalArgumentException(where + ": no parameter carries @IdempotencyKey");
        }
        String[] named = idempotent.fingerprint();
        boolean listener = isListener(method);
        if (named.length == 0) {
            List<String> rest = new ArrayList<>();
            for (int i = 0; i < parameters.length; i++) {
                if (i != key && i != context && (!listener || isMessageContent(parameters[i]))) {
                    rest.add(nameOf(parameters[i], where));
                }
            }
            named = rest.toArray(String[]::new);
        }
        List<Path> fingerprint = new ArrayList<>();
        for (String entry : named) {
            fingerprint.add(Path.of(entry, parameters, where));
        }
        Type result = method.getGenericReturnType();
        Class<?> raw = method.getReturnType();
        boolean async = raw == CompletableFuture.class || raw == CompletionStage.class;
        if (async) {
            if (!(result instanceof ParameterizedType stage)) {
                throw new IllegalArgumentException(where + ": returns a raw " + raw.getSimpleName()
                        + "; name what it completes with (" + raw.getSimpleName() + "<Charge>) so that it can be stored");
            }
            result = stage.getActualTypeArguments()[0];
        }
        return new MethodPlan(method, idempotent.operation(), key, context, List.copyOf(fingerprint),
                !async && isVoid(result) && listener ? NOTHING : codecOf(result, where), async);
    }

    /** The annotations of a message listener's method, whose caller (the listener container) needs no result. */
    private static final List<String> LISTENERS = List.of("org.springframework.kafka.annotation.KafkaListener",
            "org.springframework.kafka.annotation.KafkaListeners", "org.springframework.kafka.annotation.KafkaHandler");
    /** The annotation that names a listener's payload parameter. */
    private static final String PAYLOAD = "org.springframework.messaging.handler.annotation.Payload";

    /**
     * What a listener that returns nothing stores: nothing. Its retry (a redelivery of the record) needs no
     * result, only to know the record was handled, so such a method is not refused as other void ones are.
     */
    private static final ResultCodec<Object> NOTHING = new ResultCodec<>() {
        @Override
        public String encode(Object result) {
            return "null";
        }

        @Override
        public Object decode(String json) {
            return null;
        }
    };

    private static boolean isVoid(Type result) {
        return result == void.class || result == Void.class;
    }

    /**
     * Whether {@code method} is a message listener's (by the annotations' names: no dependency on them),
     * its own or one level into an annotation of its.
     */
    private static boolean isListener(Method method) {
        for (java.lang.annotation.Annotation annotation : method.getAnnotations()) {
            if (LISTENERS.contains(annotation.annotationType().getName())) {
                return true;
            }
            for (java.lang.annotation.Annotation meta : annotation.annotationType().getAnnotations()) {
                if (LISTENERS.contains(meta.annotationType().getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a listener's parameter is the message's content, which a redelivery repeats: its payload
     * ({@code @Payload}, or a parameter with no annotation that is not the framework's: an
     * acknowledgment, the consumer, the record). Headers are left out, the key's aside: the offset, the
     * delivery attempt and a timestamp differ between deliveries of one record, and fingerprinting them
     * would refuse the redelivery as a key reused with another payload.
     */
    private static boolean isMessageContent(Parameter parameter) {
        java.lang.annotation.Annotation[] annotations = parameter.getAnnotations();
        for (java.lang.annotation.Annotation annotation : annotations) {
            if (annotation.annotationType().getName().equals(PAYLOAD)) {
                return true;
            }
        }
        String type = parameter.getType().getName();
        return annotations.length == 0 && !type.startsWith("org.springframework.") && !type.startsWith("org.apache.kafka.");
    }

    /** The JSON codec of {@code result}, or why it cannot be stored. */
    @SuppressWarnings("unchecked")
    private static ResultCodec<Object> codecOf(Type result, String where) {
        if (!(result instanceof Class<?> type)) {
            throw new IllegalArgumentException(where + ": its result " + result.getTypeName() + " has type "
                    + "parameters, which a stored result cannot bring back; return a record that holds it");
        }
        if (type == void.class || type == Void.class) {
            throw new IllegalArgumentException(where + ": returns nothing, so a retry would have nothing to "
                    + "replay; return what the caller needs to know (a charge, an id). Only a @KafkaListener "
                    + "method may return nothing: its redelivery needs no result");
        }
        if (!type.isPrimitive() && !type.isArray() && Modifier.isAbstract(type.getModifiers())) {
            throw new IllegalArgumentException(where + ": its result type " + type.getSimpleName() + " is "
                    + (type.isInterface() ? "an interface" : "abstract") + ", which a stored result cannot be "
                    + "read back as (a replay would fail after the first call charged); return a concrete type");
        }
        Class<?> stored = type.isPrimitive() ? boxed(type) : type;
        try {
            return (ResultCodec<Object>) ResultCodec.json(stored);
        } catch (IllegalStateException noJackson) {
            throw new IllegalArgumentException(where + ": " + noJackson.getMessage(), noJackson);
        }
    }

    private static Class<?> boxed(Class<?> primitive) {
        return java.lang.invoke.MethodType.methodType(primitive).wrap().returnType();
    }

    /** The key {@code args} carry, {@code null} when the caller passed none. */
    public String keyOf(Object[] args) {
        return (String) args[keyIndex];
    }

    /** Runs one call of the method through {@code coordinator}; see {@code IdempotentMethod.invoke}. */
    public Object run(IdempotencyCoordinator coordinator, Object[] args, IdempotentMethod.Invocation invocation,
                      UnaryOperator<ContextualAction<Object, Exception>> around) throws Exception {
        String key = keyOf(args);
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Path path : fingerprint) {
            fields.put(path.entry(), path.valueIn(args));
        }
        IdempotentCall call = IdempotentCall.of(operation, key, Fingerprint.ofFields(fields));
        ContextualAction<Object, Exception> body = context -> {
            Object[] actual = args.clone();
            if (contextIndex >= 0) {
                actual[contextIndex] = context;
            }
            Object returned = invocation.proceed(actual);
            if (!async) {
                return returned;
            }
            if (returned == null) {
                throw new IllegalStateException(method + " returned null instead of a stage");
            }
            try {
                return ((CompletionStage<?>) returned).toCompletableFuture().join();
            } catch (CompletionException failed) {
                throw failed.getCause() instanceof Exception exception ? exception : failed;
            }
        };
        ContextualAction<Object, Exception> action = Objects.requireNonNull(around.apply(body),
                "the action made around " + method);
        if (!async) {
            return coordinator.execute(call, codec, action);
        }
        // Not thenApply: a derived stage's cancel would not reach the call, whose action would run anyway.
        return MethodStage.of(coordinator.callAsync(call, codec, action));
    }

    /** One fingerprint entry: a parameter, and the members to read from it one after the other. */
    private record Path(String entry, int parameter, List<String> members) {

        static Path of(String entry, Parameter[] parameters, String where) {
            List<String> parts = Arrays.asList(entry.split("\\.", -1));
            if (entry.isEmpty() || parts.contains("")) {
                throw new IllegalArgumentException(where + ": fingerprint entry '" + entry + "' is not a parameter "
                        + "name or a dotted path (request.amount)");
            }
            List<String> names = new ArrayList<>();
            int found = -1;
            for (int i = 0; i < parameters.length; i++) {
                String name = nameOf(parameters[i], where);
                names.add(name);
                if (name.equals(parts.get(0))) {
                    found = i;
                }
            }
            if (found < 0) {
                throw new IllegalArgumentException(where + ": fingerprint entry '" + entry + "' names no parameter; "
                        + "its parameters are " + String.join(", ", names));
            }
            Class<?> type = parameters[found].getType();
            for (String member : parts.subList(1, parts.size())) {
                if (type == null) {
                    break; // a map or an Object: what it holds is known only at run time
                }
                type = memberType(type, member, entry, where);
            }
            return new Path(entry, found, List.copyOf(parts.subList(1, parts.size())));
        }

        Object valueIn(Object[] args) {
            Object value = args[parameter];
            for (String member : members) {
                if (value == null) {
                    return null;
                }
                value = member(value, member);
            }
            return value;
        }

        /** The declared type of {@code type}'s {@code member}; {@code null} when it can only be read at run time. */
        private static Class<?> memberType(Class<?> type, String member, String entry, String where) {
            if (Map.class.isAssignableFrom(type) || type == Object.class) {
                return null;
            }
            if (type.isRecord()) {
                for (RecordComponent component : type.getRecordComponents()) {
                    if (component.getName().equals(member)) {
                        return component.getType();
                    }
                }
            } else {
                Method getter = getter(type, member);
                if (getter != null) {
                    return getter.getReturnType();
                }
                Field field = publicField(type, member);
                if (field != null) {
                    return field.getType();
                }
            }
            throw new IllegalArgumentException(where + ": fingerprint entry '" + entry + "': " + type.getName()
                    + " has no " + (type.isRecord() ? "component" : "getter or public field") + " '" + member + "'");
        }

        private static Object member(Object value, String member) {
            if (value instanceof Map<?, ?> map) {
                return map.get(member);
            }
            Class<?> type = value.getClass();
            try {
                if (type.isRecord()) {
                    for (RecordComponent component : type.getRecordComponents()) {
                        if (component.getName().equals(member)) {
                            Method accessor = component.getAccessor();
                            accessor.trySetAccessible();
                            return accessor.invoke(value);
                        }
                    }
                }
                Method getter = getter(type, member);
                if (getter != null) {
                    getter.trySetAccessible();
                    return getter.invoke(value);
                }
                Field field = publicField(type, member);
                if (field != null) {
                    return field.get(value);
                }
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalArgumentException("cannot read '" + member + "' of " + type.getName() + " for the "
                        + "fingerprint: " + e.getMessage(), e);
            }
            throw new IllegalArgumentException(type.getName() + " has no component, getter or public field '" + member
                    + "' for the fingerprint");
        }

        private static Method getter(Class<?> type, String member) {
            String capitalized = member.substring(0, 1).toUpperCase(Locale.ROOT) + member.substring(1);
            for (String name : new String[] {"get" + capitalized, "is" + capitalized, member}) {
                try {
                    Method method = type.getMethod(name);
                    if (method.getReturnType() != void.class && !Modifier.isStatic(method.getModifiers())) {
                        return method;
                    }
                } catch (NoSuchMethodException absent) {
                    // try the next spelling
                }
            }
            return null;
        }

        private static Field publicField(Class<?> type, String member) {
            try {
                Field field = type.getField(member);
                return Modifier.isStatic(field.getModifiers()) ? null : field;
            } catch (NoSuchFieldException absent) {
                return null;
            }
        }
    }

    private static String nameOf(Parameter parameter, String where) {
        if (!parameter.isNamePresent()) {
            throw new IllegalArgumentException(where + ": its parameters' names were not compiled in, so a "
                    + "fingerprint cannot name them; compile with -parameters");
        }
        return parameter.getName();
    }
}
