package dev.idemlab.lab.load.raw;

/**
 * The store's own operations, called through the same client library the idempotency store uses,
 * with none of the coordinator's work around them: the baselines every coordinator figure is divided
 * by, in the benchmarks (one operation at a time) and in the load harness (the writes of a whole
 * first call, through the load harness's raw driver). Keys live under a prefix of their own, never touching the
 * coordinator's records.
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
     * What a first call's store write costs without the library, on an absent key, as the benchmarks
     * label it: {@code putIfAbsent} then {@code replace}; {@code SET NX PX}; {@code INSERT ... ON CONFLICT
     * DO NOTHING} then {@code UPDATE}.
     */
    Object plainWrite(String key);

    /** A plain read of a present key ({@code get}, {@code GET}, a {@code SELECT} by key). */
    Object plainRead(String key);

    /** Writes {@code key} so that it is present, as a completed record would be. */
    void seed(String key);

    /**
     * The first of a first call's two writes, done by hand: a pending record of the size the store
     * writes, if the key is absent ({@code putIfAbsent}, {@code SET NX PX}, {@code INSERT ... ON CONFLICT
     * DO NOTHING}), with the lease's expiry where the store has one.
     *
     * @return whether this call wrote it (the key was absent)
     */
    boolean markPending(String key);

    /**
     * The second write: the pending record of {@code key} replaced by a completed one holding
     * {@code resultJson}, with the ttl's expiry where the store has one ({@code replace},
     * {@code SET XX PX}, {@code UPDATE}).
     */
    void storeResult(String key, String resultJson);

    /**
     * The result a completed record of {@code key} holds, in one read.
     *
     * @return the result's JSON, or {@code null} when the key is absent or still pending
     */
    String readResult(String key);

    /** Forgets every key this client wrote, where the store allows it cheaply; outside any measurement. */
    void forgetKeys();

    @Override
    void close();
}
