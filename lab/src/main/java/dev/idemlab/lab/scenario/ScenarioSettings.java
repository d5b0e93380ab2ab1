package dev.idemlab.lab.scenario;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.idempotency.StoreFailureMode;

import java.time.Duration;

/**
 * The knobs of the post's experiments. Defaults are the post's: a 300 ms provider, a retry at
 * 50 ms, two callers, a 30 s lease, fail open.
 *
 * @param latency how long the provider takes per charge
 * @param retryAt when callers B..N arrive
 * @param callers how many callers send the identical request (A plus retries)
 * @param lease the reservation's lease
 * @param key the idempotency key every caller sends
 * @param storeFailureMode what the coordinator does when the store is down
 */
public record ScenarioSettings(Duration latency, Duration retryAt, int callers, Duration lease, String key,
                               StoreFailureMode storeFailureMode) {

    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(300);
    public static final Duration DEFAULT_RETRY_AT = Duration.ofMillis(50);
    public static final int DEFAULT_CALLERS = 2;
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    public static final String DEFAULT_KEY = "order-42-charge";
    /** The order every scenario charges, and its amount in minor units. */
    public static final String ORDER_ID = "order-42";
    public static final long AMOUNT = 10;
    public static final long OTHER_AMOUNT = 5;

    public static ScenarioSettings defaults() {
        return new ScenarioSettings(DEFAULT_LATENCY, DEFAULT_RETRY_AT, DEFAULT_CALLERS, DEFAULT_LEASE, DEFAULT_KEY,
                StoreFailureMode.FAIL_OPEN);
    }

    /** The in-flight policies a scenario runs under when asked for {@code all}. */
    public static final LabPolicy[] ALL_POLICIES = LabPolicy.values();
}
