package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.lab.load.raw.RawStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

/**
 * The raw driver's target: the request {@link CoordinatorTarget} sends, with the coordinator's store
 * work done by hand on the same server, so that a ratio of the two measures only the coordinator. A
 * request writes a pending record if its key is absent ({@link RawStore#markPending}); the one that
 * wrote it charges the provider and writes the completed record with the charge, encoded by the codec
 * the coordinator uses, so the record has the same size ({@link RawStore#storeResult}). Any other
 * request of the key reads the record once: a completed one is replayed, a pending one is answered
 * "in progress", as under RAISE. Nothing waits, renews, fences, fingerprints or notifies: that is the
 * coordinator's work, which the baseline leaves out.
 *
 * <p>Thread-safe.
 *
 * @param store the raw client on the store's server
 * @param provider the provider whose ledger is the run's ground truth
 */
record RawTarget(RawStore store, FakePaymentProvider provider) implements LoadTarget {

    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    @Override
    public void send(int key, ChargeHistory history) {
        String idempotencyKey = LoadKeys.key(key);
        String namespace = LoadKeys.OPERATION + ':' + idempotencyKey;
        if (store.markPending(namespace)) {
            Charge charge = provider.charge(LoadKeys.orderId(key), LoadKeys.amount(key), idempotencyKey);
            store.storeResult(namespace, CHARGE.encode(charge));
            history.answered(key, charge.id(), Outcome.EXECUTED);
            return;
        }
        String result = store.readResult(namespace);
        if (result == null) {
            history.failed(ErrorKind.IN_PROGRESS);
            return;
        }
        history.answered(key, CHARGE.decode(result).id(), Outcome.REPLAYED);
    }
}
