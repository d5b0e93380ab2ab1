package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * A broken store, for proving that the nemesis's checker can fail: now and then (one reserve in four
 * that finds another attempt's reservation) it answers as if the key were absent, granting a
 * reservation it never wrote. A coordinator over it runs the action twice. Thread-safe.
 */
final class ForgetfulStore extends ForwardingIdempotencyStore {

    private final SplittableRandom random;

    ForgetfulStore(IdempotencyStore store, long seed) {
        super(store);
        this.random = new SplittableRandom(seed);
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        Reservation reservation = super.reserve(namespace, token, fingerprint, lease);
        if (reservation instanceof Reservation.Found found && found.record() instanceof Pending && forgets()) {
            return Reservation.acquired(1);
        }
        return reservation;
    }

    private synchronized boolean forgets() {
        return random.nextInt(4) == 0;
    }
}
