package dev.idemlab.examples.payments;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spring.IdempotencyProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * The post's broken baseline ({@code payments.idempotency=result-cache}), kept on purpose so that the
 * lab can show its double charge through a real service: an Idempotency-Key implemented as a result
 * cache. It looks the key up and replays a stored charge; otherwise it charges, then stores the charge
 * unless one is there already (first writer wins) and answers with the stored one. A retry that arrives
 * while the first request is still at the provider finds nothing, and charges the card a second time;
 * both get the first charge's answer, so only the provider's ledger shows it. Never use it for money:
 * {@link ReservedCharges} is the fix.
 *
 * <p>It keeps its records in the starter's store (Redis or PostgreSQL): the first-writer-wins put is a
 * reserve followed at once by a complete. Thread-safe.
 */
@Service
@ConditionalOnProperty(name = "payments.idempotency", havingValue = "result-cache")
public class ResultCacheCharges implements Charges {

    /** How long a put that finds another writer's put under way waits for it to land. */
    private static final Duration PUT_SETTLE = Duration.ofSeconds(1);

    private final IdempotencyStore store;
    private final OrderCharges orders;
    private final IdempotencyProperties settings;
    private final ObjectMapper json = new ObjectMapper();

    ResultCacheCharges(IdempotencyStore store, OrderCharges orders, IdempotencyProperties settings) {
        this.store = store;
        this.orders = orders;
        this.settings = settings;
    }

    @Override
    public Charge charge(String key, String client, ChargeRequest request, ChargeAttempt attempt,
                         IdempotencyContext context) {
        IdempotentCall call = IdempotentCall.of(OPERATION, key, Fingerprint.ofFields(
                Map.of("client", client, "order_id", request.orderId(), "amount", request.amount())));
        Optional<IdempotencyRecord> cached = store.lookup(call.namespace());
        if (cached.isPresent()) {
            requireSameRequest(call, cached.get());
            if (cached.get() instanceof IdempotencyRecord.Completed completed) {
                return decode(completed);
            }
        }
        // The naive implementation it stands for passes the client's own key on, as it always did.
        Charge charge = orders.charge(key, client, request, attempt, key);
        Optional<IdempotencyRecord.Completed> first = putIfAbsent(call, encode(charge));
        if (first.isPresent()) {
            requireSameRequest(call, first.get());
            return decode(first.get());
        }
        return charge;
    }

    /** Stores {@code result} unless a record is there; empty when this one was stored, else the one there. */
    private Optional<IdempotencyRecord.Completed> putIfAbsent(IdempotentCall call, String result) {
        String token = "result-cache-" + UUID.randomUUID();
        long settleBy = System.nanoTime() + PUT_SETTLE.toNanos();
        while (true) {
            Reservation reservation = store.reserve(call.namespace(), token, call.fingerprint().hex(), settings.lease());
            if (reservation instanceof Reservation.Acquired) {
                store.complete(call.namespace(), token, call.fingerprint().hex(), StoredResult.of(result), settings.ttl());
                return Optional.empty();
            }
            IdempotencyRecord there = ((Reservation.Found) reservation).record();
            if (there instanceof IdempotencyRecord.Completed completed) {
                return Optional.of(completed);
            }
            if (System.nanoTime() - settleBy > 0) {
                return Optional.empty(); // the other writer's put never landed: answer with this request's own charge
            }
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }

    private static void requireSameRequest(IdempotentCall call, IdempotencyRecord record) {
        if (!record.fingerprint().equals(call.fingerprint().hex())) {
            throw new IdempotencyKeyReuseException(call.operation(), call.key(), record.fingerprint(),
                    call.fingerprint().hex(), !(record instanceof IdempotencyRecord.Completed));
        }
    }

    private String encode(Charge charge) {
        try {
            return json.writeValueAsString(charge);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a charge could not be written as JSON", e);
        }
    }

    private Charge decode(IdempotencyRecord.Completed completed) {
        try {
            return json.readValue(completed.result().json(), Charge.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored charge could not be read: " + e.getMessage(), e);
        }
    }
}
