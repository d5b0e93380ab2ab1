package dev.idemlab.peers;

/**
 * One idempotency library, wired through its documented API in front of the fake provider's
 * {@code charge}. The library, not this interface, decides whether the provider's charge runs.
 *
 * <p>Implementations are thread-safe: experiments call {@link #charge} from several threads at once.
 */
public interface PeerLibrary extends AutoCloseable {

    /** A short stable name, e.g. {@code jdempotent-redis}. */
    String name();

    /** The library's version as pinned in the build, e.g. {@code 1.1.0}. */
    String version();

    /** One sentence: how the library is wired, e.g. "@JdempotentResource on a Spring bean, AOP proxy, Redis repository". */
    String wiring();

    /** Where the library keeps its idempotency records. */
    StoreKind storeKind();

    /**
     * Charges {@code amount} for {@code orderId} the way a client of this library makes the call.
     *
     * @param idempotencyKey the client's key for this request
     * @param orderId the order being paid
     * @param amount the amount in minor units
     * @return exactly what the library hands back: a {@link ChargeReceipt}, a replay, {@code null},
     *         or anything else the library returns
     * @throws RuntimeException whatever the library throws, unchanged
     */
    Object charge(String idempotencyKey, String orderId, long amount);

    /** Stops what the library started (contexts, clients, helper processes). */
    @Override
    void close();
}
