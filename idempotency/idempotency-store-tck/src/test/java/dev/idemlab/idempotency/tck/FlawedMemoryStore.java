package dev.idemlab.idempotency.tck;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A plain memory store with one deliberate flaw, or none: the kit must pass the flawless one and
 * fail each flawed one. Synchronized throughout, except where the flaw is that it is not.
 */
final class FlawedMemoryStore implements IdempotencyStore {

    /** The mistakes a store author makes, each of which loses a charge or charges twice. */
    enum Flaw {
        NONE,
        /** complete keeps the reservation's expiry: the record dies with the lease, a retry charges again. */
        COMPLETED_EXPIRES_WITH_THE_LEASE,
        /** the remaining lease is reported as granted, never shrinking: a 409's retry-after lies. */
        LEASE_REMAINING_NEVER_SHRINKS,
        /** complete writes whatever token asks: a stale holder overwrites the new owner. */
        COMPLETE_IGNORES_THE_TOKEN,
        /** release deletes a completed record: a late release makes the next retry charge again. */
        RELEASE_DELETES_COMPLETED_RECORDS,
        /** reserve reads, then writes, in two steps: two contenders both acquire. */
        RESERVE_IS_NOT_ATOMIC
    }

    private record Entry(IdempotencyRecord record, long expiresAt, Duration granted) { }

    private final Flaw flaw;
    private final ManualTicker ticker;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, CountDownLatch> looked = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong fences = new java.util.concurrent.atomic.AtomicLong();

    FlawedMemoryStore(Flaw flaw, ManualTicker ticker) {
        this.flaw = flaw;
        this.ticker = ticker;
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        if (flaw == Flaw.RESERVE_IS_NOT_ATOMIC) {
            Optional<IdempotencyRecord> seen = lookup(namespace);
            if (seen.isPresent() && !(seen.get() instanceof Pending p && p.token().equals(token))) {
                return Reservation.found(seen.get());
            }
            // The window a network round trip would open, held until a second reserve of the key has looked
            // too (50 ms at most, so that the kit's one-at-a-time tests stay quick): a 2 ms window alone let
            // the concurrency test's eight threads now and then go through one after the other.
            CountDownLatch pair = looked.computeIfAbsent(namespace, unused -> new CountDownLatch(2));
            pair.countDown();
            try {
                pair.await(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            put(namespace, new Pending(token, fingerprint, lease), lease);
            return Reservation.acquired(fences.incrementAndGet());
        }
        synchronized (this) {
            Optional<IdempotencyRecord> seen = lookup(namespace);
            if (seen.isPresent() && !(seen.get() instanceof Pending p && p.token().equals(token))) {
                return Reservation.found(seen.get());
            }
            put(namespace, new Pending(token, fingerprint, lease), lease);
            return Reservation.acquired(fences.incrementAndGet());
        }
    }

    @Override
    public synchronized boolean renew(String namespace, String token, Duration lease) {
        Entry entry = live(namespace);
        if (entry != null && entry.record() instanceof Pending pending && pending.token().equals(token)) {
            put(namespace, pending, lease);
            return true;
        }
        return false;
    }

    @Override
    public synchronized boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                         Duration ttl) {
        Entry entry = live(namespace);
        if (entry == null) {
            put(namespace, new Completed(fingerprint, result), ttl); // late completion: nobody took the key over
            return true;
        }
        if (!(entry.record() instanceof Pending pending)) {
            return false;
        }
        if (!pending.token().equals(token) && flaw != Flaw.COMPLETE_IGNORES_THE_TOKEN) {
            return false;
        }
        Completed completed = new Completed(pending.fingerprint(), result);
        if (flaw == Flaw.COMPLETED_EXPIRES_WITH_THE_LEASE) {
            entries.put(namespace, new Entry(completed, entry.expiresAt(), entry.granted()));
        } else {
            put(namespace, completed, ttl);
        }
        return true;
    }

    @Override
    public synchronized boolean release(String namespace, String token) {
        Entry entry = live(namespace);
        if (entry == null) {
            return false;
        }
        boolean held = entry.record() instanceof Pending pending && pending.token().equals(token);
        if (held || (flaw == Flaw.RELEASE_DELETES_COMPLETED_RECORDS && entry.record() instanceof Completed)) {
            entries.remove(namespace);
            return held;
        }
        return false;
    }

    @Override
    public synchronized Optional<IdempotencyRecord> lookup(String namespace) {
        Entry entry = live(namespace);
        if (entry == null) {
            return Optional.empty();
        }
        if (entry.record() instanceof Pending pending) {
            Duration remaining = flaw == Flaw.LEASE_REMAINING_NEVER_SHRINKS
                    ? entry.granted()
                    : Duration.ofNanos(entry.expiresAt() - ticker.read());
            return Optional.of(new Pending(pending.token(), pending.fingerprint(), remaining));
        }
        return Optional.of(entry.record());
    }

    @Override
    public StoreDescription describe() {
        return new StoreDescription("flawed-memory", flaw.name().toLowerCase(java.util.Locale.ROOT), "in-process");
    }

    private synchronized void put(String namespace, IdempotencyRecord record, Duration life) {
        entries.put(namespace, new Entry(record, ticker.read() + life.toNanos(), life));
    }

    private Entry live(String namespace) {
        Entry entry = entries.get(namespace);
        return entry != null && entry.expiresAt() - ticker.read() > 0 ? entry : null;
    }
}
