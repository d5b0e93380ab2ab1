package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKey;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/** A Spring bean with {@code @Idempotent} methods over the tests' ledger. */
public class Payments {

    private final Ledger ledger;
    // Behind methods: a test holds the bean's proxy, whose own fields are not the target's.
    private volatile CountDownLatch insideCharge = new CountDownLatch(0);
    private volatile CountDownLatch release = new CountDownLatch(0);

    public Payments(Ledger ledger) {
        this.ledger = ledger;
    }

    @Idempotent(operation = "payment.charge", fingerprint = {"request.orderId", "request.amount"})
    public Charge charge(@IdempotencyKey String key, ChargeRequest request, IdempotencyContext context)
            throws InterruptedException {
        insideCharge.countDown();
        release.await();
        String id = ledger.charge(request.orderId(), request.amount());
        return new Charge(id, request.orderId(), request.amount(), context.downstreamKey());
    }

    @Idempotent(operation = "payment.charge-async", fingerprint = {"request.orderId", "request.amount"})
    public CompletableFuture<Charge> chargeLater(@IdempotencyKey String key, ChargeRequest request) {
        return CompletableFuture.supplyAsync(() ->
                new Charge(ledger.charge(request.orderId(), request.amount()), request.orderId(), request.amount(), null));
    }

    /** Makes the next charges count {@code inside} down once they started, then wait for {@code release}. */
    public void holdCharges(CountDownLatch inside, CountDownLatch release) {
        this.insideCharge = inside;
        this.release = release;
    }

    /** Calls {@link #charge} on itself, past the proxy: not idempotent. */
    public Charge chargeThroughThis(String key, ChargeRequest request) throws InterruptedException {
        return this.charge(key, request, new IdempotencyContext("payment.charge", key, 0, null));
    }
}
