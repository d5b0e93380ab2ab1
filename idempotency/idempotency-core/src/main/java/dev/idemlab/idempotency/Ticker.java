package dev.idemlab.idempotency;

/**
 * A monotonic time source in nanoseconds. Library code never reads the clock directly: tests pass
 * a ticker they advance themselves instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary origin; only differences mean anything. */
    long read();

    /** The system's monotonic clock. */
    static Ticker system() {
        return System::nanoTime;
    }
}
