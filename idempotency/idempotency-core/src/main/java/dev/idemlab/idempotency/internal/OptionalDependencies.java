package dev.idemlab.idempotency.internal;

/**
 * Which of the core's optional dependencies are on the class path. Asking loads nothing of them,
 * so a caller checks here before touching a class that needs one. Stateless and thread-safe.
 */
public final class OptionalDependencies {

    private static final boolean JACKSON = present("com.fasterxml.jackson.databind.ObjectMapper");

    private OptionalDependencies() { }

    /** Whether {@code jackson-databind} can be loaded. */
    public static boolean jackson() {
        return JACKSON;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, OptionalDependencies.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
