package dev.idemlab.bench.raw;

/**
 * The store's own operations, called through the same client library the idempotency store uses,
 * with none of the coordinator's work around them: the baselines every coordinator figure is divided
 * by. Keys live under a prefix of their own, never touching the coordinator's records.
 *
 * <p>Implementations are thread-safe.
 */
public interface RawStore extends AutoCloseable {

    /**
     * The one atomic conditional write a reservation is built on ({@code putIfAbsent}, an EVALSHA of
     * a minimal reserve script, {@code INSERT ... ON CONFLICT DO NOTHING}). On an absent key it
     * writes; on a present key it answers what is there.
     *
     * @return what the store answered, for the benchmark to consume
     */
    Object reserve(String key);

    /**
     * What a first call costs without the library, on an absent key: see
     * {@link dev.idemlab.bench.StoreKind#plainWriteLabel()}.
     */
    Object plainWrite(String key);

    /** A plain read of a present key: see {@link dev.idemlab.bench.StoreKind#plainReadLabel()}. */
    Object plainRead(String key);

    /** Writes {@code key} so that it is present, as a completed record would be. */
    void seed(String key);

    /** Forgets every key this client wrote, where the store allows it cheaply; outside any measurement. */
    void forgetKeys();

    @Override
    void close();
}
