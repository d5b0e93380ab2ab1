package dev.idemlab.provider;

/**
 * The provider did not answer in time. From the caller's side this is ambiguous: the fake provider
 * throws it either before anything was charged ({@link FakePaymentProvider#failNextCalls(int)}),
 * where a retry is safe and must charge exactly once, or after the charge was made and the reply
 * lost ({@link FakePaymentProvider#chargeThenTimeOutNextCalls(int)}), where only a downstream key
 * the provider deduplicates on keeps a retry from charging twice. The ledger says which happened.
 */
public final class ProviderTimeoutException extends ProviderException {

    private static final long serialVersionUID = 1L;

    private final String orderId;

    /**
     * A timeout before anything was charged.
     *
     * @param orderId the order whose charge timed out
     */
    public ProviderTimeoutException(String orderId) {
        this(orderId, "provider timed out before charging order " + orderId);
    }

    private ProviderTimeoutException(String orderId, String message) {
        super(message);
        this.orderId = orderId;
    }

    /**
     * A timeout after the charge was made: the effect happened, the reply was lost.
     *
     * @param orderId the order that was charged
     * @return the exception to throw
     */
    public static ProviderTimeoutException replyLost(String orderId) {
        return new ProviderTimeoutException(orderId,
                "provider timed out on order " + orderId + " after charging it; the reply was lost");
    }

    /**
     * A timeout seen from a client that cannot tell whether the charge was made.
     *
     * @param orderId the order whose charge timed out
     * @param how what the client saw, for the message
     * @return the exception to throw
     */
    public static ProviderTimeoutException unanswered(String orderId, String how) {
        return new ProviderTimeoutException(orderId,
                "provider timed out on order " + orderId + " (" + how + "); whether it charged is unknown");
    }

    /** The order whose charge timed out. */
    public String orderId() {
        return orderId;
    }
}
