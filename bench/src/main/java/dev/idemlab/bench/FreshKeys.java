package dev.idemlab.bench;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A new idempotency key on every call, unique across threads and forks: a random per-thread prefix
 * and a counter. Coordinator and raw baselines build their keys the same way, so the cost cancels.
 */
@State(Scope.Thread)
public class FreshKeys {

    private final String prefix = "k" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + '-';
    private long counter;

    /** A key never handed out before. */
    public String next() {
        return prefix + ++counter;
    }
}
