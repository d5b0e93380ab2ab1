package dev.idemlab.idempotency.store.memory;

import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.NamespaceListeners;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A single-process store: a {@link ConcurrentHashMap} whose every operation is one atomic
 * {@code compute}. Expiry follows an injected {@link Ticker}, so tests advance time instead of
 * sleeping. Expired entries are dropped when touched, and every {@value #SWEEP_EVERY}th reservation
 * (by its fence number, so the choice costs nothing and touches no shared state) also sweeps the next
 * {@value #SWEEP_STEP} entries of a cursor that walks the map round and round, so memory stays
 * bounded by the live records at a constant cost per write (a whole-map sweep would cost a write
 * time proportional to the number of records).
 *
 * <p>Thread-safe.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore, CompletionNotifications {

    /** Reservations per sweep step. */
    static final int SWEEP_EVERY = 16;
    /** Entries one sweep looks at: two per reservation on average. */
    static final int SWEEP_STEP = 2 * SWEEP_EVERY;

    private static final StoreDescription DESCRIPTION = new StoreDescription("memory", "in-process", "in-process");

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** One counter for every key: a fence greater than any earlier one of the store is greater than its key's. */
    private final AtomicLong fences = new AtomicLong();
    private final NamespaceListeners listeners = new NamespaceListeners();
    private final Ticker ticker;
    /** The sweeping cursor; one writer at a time advances it, the others skip their step. */
    private final AtomicBoolean sweeping = new AtomicBoolean();
    // Over the keys, not the entries: an entry iterator allocates a map entry per step.
    private Iterator<String> sweepCursor = Collections.emptyIterator();

    /**
     * One record and the ticker reading at which it expires. Compared by identity, so that a
     * compare-and-set replaces exactly the entry that was read. A reservation keeps its token and
     * fingerprint in the entry itself and becomes a {@link Pending} only when someone reads it: a
     * first call allocates one object for its reservation, not two.
     */
    private abstract static sealed class Entry permits HeldEntry, CompletedEntry {
        private final long expiresAtNanos;

        Entry(long expiresAtNanos) {
            this.expiresAtNanos = expiresAtNanos;
        }

        /** The record as a reader sees it at {@code now}, with what is left of a lease. */
        abstract IdempotencyRecord recordAt(long now);

        abstract String fingerprint();

        long expiresAtNanos() {
            return expiresAtNanos;
        }

        boolean liveAt(long now) {
            return now - expiresAtNanos < 0;
        }
    }

    /** A reservation held by {@code token}. */
    private static final class HeldEntry extends Entry {
        private final String token;
        private final String fingerprint;

        HeldEntry(String token, String fingerprint, long expiresAtNanos) {
            super(expiresAtNanos);
            this.token = token;
            this.fingerprint = fingerprint;
        }

        @Override
        IdempotencyRecord recordAt(long now) {
            return new Pending(token, fingerprint, Duration.ofNanos(expiresAtNanos() - now));
        }

        @Override
        String fingerprint() {
            return fingerprint;
        }
    }

    /** A completed record, kept as its parts: a first call allocates one object for it, not two. */
    private static final class CompletedEntry extends Entry {
        private final String fingerprint;
        private final StoredResult result;

        CompletedEntry(String fingerprint, StoredResult result, long expiresAtNanos) {
            super(expiresAtNanos);
            this.fingerprint = fingerprint;
            this.result = result;
        }

        @Override
        IdempotencyRecord recordAt(long now) {
            return new Completed(fingerprint, result);
        }

        @Override
        String fingerprint() {
            return fingerprint;
        }
    }

    /** A store on the system's monotonic clock. */
    public InMemoryIdempotencyStore() {
        this(Ticker.system());
    }

    /** A store on the given ticker. */
    public InMemoryIdempotencyStore(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        long now = ticker.read();
        // A completed record only ever changes by expiring: answer a replay without taking the bin's lock.
        Entry seen = entries.get(namespace);
        if (seen instanceof CompletedEntry && seen.liveAt(now)) {
            return Reservation.found(seen.recordAt(now));
        }
        // A fresh key, the common case: one insert, no lock held while a lambda runs. A fence this
        // takes and then loses to a concurrent insert is skipped: fences only have to grow.
        if (seen == null) {
            long fence = fences.incrementAndGet();
            if (entries.putIfAbsent(namespace, new HeldEntry(token, fingerprint, now + lease.toNanos()))
                    == null) {
                maybeSweep(fence);
                return Reservation.acquired(fence);
            }
        }
        return reserveUnderLock(namespace, token, fingerprint, lease, now);
    }

    /**
     * A reserve that found a record in the way, or lost the race to insert: decided under the bin's
     * lock. Apart from {@link #reserve}'s common paths, which stay small enough for the compiler to
     * inline into the caller (and so to leave their answer unallocated).
     */
    private Reservation reserveUnderLock(String namespace, String token, String fingerprint, Duration lease, long now) {
        Reservation[] answer = new Reservation[1];
        entries.compute(namespace, (ns, entry) -> {
            if (entry != null && entry.liveAt(now)
                    && !(entry instanceof HeldEntry held && held.token.equals(token))) {
                answer[0] = Reservation.found(entry.recordAt(now));
                return entry;
            }
            answer[0] = Reservation.acquired(fences.incrementAndGet());
            return new HeldEntry(token, fingerprint, now + lease.toNanos());
        });
        if (answer[0] instanceof Reservation.Acquired acquired) {
            maybeSweep(acquired.fence());
        }
        return answer[0];
    }

    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        long now = ticker.read();
        boolean[] done = new boolean[1];
        entries.computeIfPresent(namespace, (ns, entry) -> {
            if (heldBy(entry, token, now)) {
                done[0] = true;
                return new HeldEntry(token, entry.fingerprint(), now + lease.toNanos());
            }
            return entry;
        });
        return done[0];
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        long now = ticker.read();
        // The holder's own live reservation, the common case: swapped for the completed record in one
        // compare-and-set on the entry seen (entries are compared by identity, each one is new).
        Entry seen = entries.get(namespace);
        if (seen != null && heldBy(seen, token, now)
                && entries.replace(namespace, seen, new CompletedEntry(seen.fingerprint(), result, now + ttl.toNanos()))) {
            tellCompleted(namespace, token, seen.fingerprint(), result);
            return true;
        }
        String[] written = new String[1]; // the fingerprint of the record written, if one was
        entries.compute(namespace, (ns, entry) -> {
            if (entry == null || !entry.liveAt(now)) {
                written[0] = fingerprint; // late completion: nobody took the key over
            } else if (heldBy(entry, token, now)) {
                written[0] = entry.fingerprint();
            } else {
                return entry;
            }
            return new CompletedEntry(written[0], result, now + ttl.toNanos());
        });
        if (written[0] != null) {
            tellCompleted(namespace, token, written[0], result);
        }
        return written[0] != null;
    }

    @Override
    public boolean release(String namespace, String token) {
        long now = ticker.read();
        boolean[] done = new boolean[1];
        entries.computeIfPresent(namespace, (ns, entry) -> {
            if (heldBy(entry, token, now)) {
                done[0] = true;
                return null;
            }
            return entry;
        });
        if (done[0] && listeners.watching(namespace)) {
            listeners.fire(namespace, new Ending.Released(token));
        }
        return done[0];
    }

    /** Hands the waiters on {@code namespace}, if any, the record the holder {@code token} completed. */
    private void tellCompleted(String namespace, String token, String fingerprint, StoredResult result) {
        if (listeners.watching(namespace)) {
            listeners.fire(namespace, new Ending.Completed(token, new Completed(fingerprint, result)));
        }
    }

    @Override
    public Subscription subscribe(String namespace, Listener listener) {
        return listeners.add(namespace, listener);
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        Entry entry = entries.get(namespace);
        long now = ticker.read();
        if (entry == null || !entry.liveAt(now)) {
            return Optional.empty();
        }
        return Optional.of(entry.recordAt(now));
    }

    @Override
    public StoreDescription describe() {
        return DESCRIPTION;
    }

    /** How many entries the map holds, live or not yet swept. */
    public int size() {
        return entries.size();
    }

    /** Drops every expired entry now. */
    public void sweepExpired() {
        long now = ticker.read();
        entries.values().removeIf(entry -> !entry.liveAt(now));
    }

    private static boolean heldBy(Entry entry, String token, long now) {
        return entry.liveAt(now) && entry instanceof HeldEntry held && held.token.equals(token);
    }

    /** Sweeps a step after one reservation in {@link #SWEEP_EVERY}, unless another writer is sweeping. */
    private void maybeSweep(long fence) {
        if (fence % SWEEP_EVERY != 0 || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            long now = ticker.read();
            for (int step = 0; step < SWEEP_STEP; step++) {
                if (!sweepCursor.hasNext()) {
                    sweepCursor = entries.keySet().iterator();
                    if (!sweepCursor.hasNext()) {
                        return;
                    }
                }
                String key = sweepCursor.next();
                Entry entry = entries.get(key);
                if (entry != null && !entry.liveAt(now)) {
                    // Remove only the entry seen, never one a concurrent write just put there.
                    entries.remove(key, entry);
                }
            }
        } finally {
            sweeping.set(false);
        }
    }
}
