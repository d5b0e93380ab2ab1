package dev.idemlab.consumer;

import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.Idempotent;

import java.util.concurrent.atomic.AtomicInteger;

/** A service's charge, as a team would write it on the starter: one charge per key. Thread-safe. */
public class Charges {

    private final AtomicInteger made = new AtomicInteger();

    @Idempotent(operation = "payment.charge")
    public String charge(@IdempotencyKey String key, String orderId, long amount) {
        return "ch_" + made.incrementAndGet() + "_" + orderId + "_" + amount;
    }

    /** How many charges ran, replays not counted. */
    public int made() {
        return made.get();
    }
}
