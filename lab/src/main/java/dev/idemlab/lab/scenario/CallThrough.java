package dev.idemlab.lab.scenario;

/**
 * How a scenario's callers reach the coordinator: by calling it directly, or through an interface
 * annotated {@code @Idempotent} that {@code Idempotency.proxy} wraps ({@link AnnotatedCharges}), as a
 * service without a framework would. Both run the same coordinator, store and provider, so the
 * ledger says whether the proxy charges as the coordinator does.
 */
public enum CallThrough {

    /** {@code coordinator.call(...)} with the call, codec and action built by hand. */
    COORDINATOR,

    /**
     * {@link AnnotatedCharges#charge} on {@code Idempotency.proxy}: the library's WAIT and RAISE only,
     * since the lab's result cache (policy RUN) is no policy of the library's coordinator.
     */
    PROXY;

    /** Why policy run cannot go through the proxy. */
    public static final String NO_PROXY_FOR_THE_RESULT_CACHE = "the result cache (policy run) is the lab's baseline, "
            + "not a policy of the library: Idempotency.proxy wraps the library's coordinator, under wait or raise";
}
