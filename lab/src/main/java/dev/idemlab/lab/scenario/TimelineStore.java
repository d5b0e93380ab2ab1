package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Puts the store on a scenario's timeline as a participant: every reserve and what it found, every
 * renewal, every complete and release and whether the token still held, and a marker that expired
 * (a reserve acquired a key whose earlier reservation was neither completed nor released). A
 * lookup is drawn only when its answer changed, so a waiter's polls do not flood the diagram.
 * Thread-safe.
 */
final class TimelineStore extends ForwardingIdempotencyStore {

    private final Timeline timeline;
    /** Per namespace, the reservation that is neither completed nor released yet, if any. */
    private final Map<String, String> openReservations = new ConcurrentHashMap<>();
    private final Map<String, String> lastLookup = new ConcurrentHashMap<>();

    TimelineStore(IdempotencyStore delegate, Timeline timeline) {
        super(delegate);
        this.timeline = timeline;
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        String[] expired = {""};
        return traced("reserve " + namespace + ", lease " + lease.toMillis() + " ms", () -> {
            Reservation reservation = super.reserve(namespace, token, fingerprint, lease);
            if (reservation instanceof Reservation.Acquired acquired) {
                String earlier = openReservations.put(namespace, token + "/" + acquired.fence());
                if (earlier != null && !earlier.startsWith(token + "/")) {
                    expired[0] = " (the marker of fence " + earlier.substring(earlier.indexOf('/') + 1)
                            + " had expired)";
                }
            }
            return reservation;
        }, reservation -> describe(reservation) + expired[0]);
    }

    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        return traced("renew lease " + lease.toMillis() + " ms", () -> super.renew(namespace, token, lease),
                renewed -> renewed ? "renewed" : "not renewed: the token no longer holds the key");
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        return traced("complete with " + brief(result), () -> {
            boolean written = super.complete(namespace, token, fingerprint, result, ttl);
            if (written) {
                openReservations.remove(namespace);
            }
            return written;
        }, written -> written ? "completed: the record replays from now on"
                : "refused: another attempt holds or completed the key (stale)");
    }

    @Override
    public boolean release(String namespace, String token) {
        return traced("release", () -> {
            boolean released = super.release(namespace, token);
            openReservations.computeIfPresent(namespace, (k, v) -> v.startsWith(token + "/") ? null : v);
            return released;
        }, released -> released ? "released: the key is absent" : "nothing released: the token no longer holds the key");
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        Optional<IdempotencyRecord> found;
        try {
            found = super.lookup(namespace);
        } catch (RuntimeException e) {
            timeline.record(Timeline.STORE, Timeline.COORDINATOR, "lookup failed: " + failure(e) + forCaller(), true);
            throw e;
        }
        String answer = found.map(TimelineStore::describe).orElse("absent");
        // A waiter polls: draw a lookup only when what it found changed, not its lease countdown.
        String state = found.map(r -> r instanceof IdempotencyRecord.Pending p ? "pending " + p.token() : answer)
                .orElse(answer);
        String caller = Thread.currentThread().getName();
        if (!state.equals(lastLookup.put(namespace + "|" + caller, state))) {
            timeline.record(Timeline.COORDINATOR, Timeline.STORE, "lookup" + forCaller(), false);
            timeline.record(Timeline.STORE, Timeline.COORDINATOR, answer + forCaller(), true);
        }
        return found;
    }

    private <T> T traced(String request, Supplier<T> call, java.util.function.Function<T, String> reply) {
        timeline.record(Timeline.COORDINATOR, Timeline.STORE, request + forCaller(), false);
        T answer;
        try {
            answer = call.get();
        } catch (RuntimeException e) {
            timeline.record(Timeline.STORE, Timeline.COORDINATOR, "failed: " + failure(e) + forCaller(), true);
            throw e;
        }
        timeline.record(Timeline.STORE, Timeline.COORDINATOR, reply.apply(answer) + forCaller(), true);
        return answer;
    }

    private static String describe(Reservation reservation) {
        if (reservation instanceof Reservation.Acquired acquired) {
            return "acquired, fence " + acquired.fence();
        }
        return "found " + describe(((Reservation.Found) reservation).record());
    }

    private static String describe(IdempotencyRecord record) {
        if (record instanceof IdempotencyRecord.Pending pending) {
            return "a pending marker, lease " + pending.leaseRemaining().toMillis() + " ms left";
        }
        return "a completed record: " + brief(((IdempotencyRecord.Completed) record).result());
    }

    private static String brief(StoredResult result) {
        if (!result.isStored()) {
            return "result not stored";
        }
        String json = result.json();
        return json.length() <= 48 ? json : json.substring(0, 45) + "... (" + json.length() + " chars)";
    }

    private static String failure(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.length() <= 80 ? message : message.substring(0, 77) + "...";
    }

    private static String forCaller() {
        return " (for " + Thread.currentThread().getName() + ")";
    }
}
