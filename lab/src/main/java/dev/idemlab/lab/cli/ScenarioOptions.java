package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.lab.scenario.ScenarioSettings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;

/** The options every scenario takes: timing, lease, key, store-failure mode, store and output. */
final class ScenarioOptions {

    /** What the coordinator does when the store is down, as typed on the command line. */
    enum OnStoreFailure { OPEN, CLOSED }

    static final long MAX_LATENCY_MS = 60_000;
    /** One second short of the record's 24 h ttl, which the lease must be shorter than. */
    static final long MAX_LEASE_S = 24 * 60 * 60 - 1;

    @Option(names = "--latency-ms", paramLabel = "MS", defaultValue = "300",
            description = "How long the provider takes per charge, 1 to " + MAX_LATENCY_MS + ". Default: ${DEFAULT-VALUE}.")
    long latencyMs;

    @Option(names = "--lease-s", paramLabel = "S", defaultValue = "30",
            description = "The reservation's lease in seconds, 1 to " + MAX_LEASE_S + " (shorter than the 24 h ttl). "
                    + "Default: ${DEFAULT-VALUE}.")
    long leaseSeconds;

    @Option(names = "--key", paramLabel = "KEY", defaultValue = ScenarioSettings.DEFAULT_KEY,
            description = "The Idempotency-Key every caller sends: 1 to 255 Unicode code points, valid Unicode, not blank, no control characters. Default: ${DEFAULT-VALUE}.")
    String key;

    @Option(names = "--on-store-failure", paramLabel = "MODE", defaultValue = "open",
            description = "When the store is down: open (run the action anyway, count the error) or closed (refuse, 503). Default: ${DEFAULT-VALUE}.")
    OnStoreFailure onStoreFailure;

    @Mixin
    StoreOptions store;

    @Mixin
    ProviderOption provider;

    @Mixin
    OutputOptions output;

    /**
     * The settings, every rule checked.
     *
     * @throws UsageException naming the rule an option breaks
     */
    ScenarioSettings settings(RaceOptions race) {
        Bounds.check("--latency-ms", latencyMs, 1, MAX_LATENCY_MS);
        if (leaseSeconds < 1 || leaseSeconds > MAX_LEASE_S) {
            throw new UsageException("--lease-s must be between 1 and " + MAX_LEASE_S + " (shorter than the record ttl of "
                    + IdempotencyConfig.DEFAULT_TTL.toHours() + " h), got " + leaseSeconds);
        }
        String brokenKeyRule = IdempotentCall.brokenKeyRule(key);
        if (brokenKeyRule != null) {
            throw new UsageException("--key: " + brokenKeyRule);
        }
        Duration retryAt = ScenarioSettings.DEFAULT_RETRY_AT;
        int callers = ScenarioSettings.DEFAULT_CALLERS;
        if (race != null) {
            race.validate();
            retryAt = Duration.ofMillis(race.retryAtMs);
            callers = (int) race.callers; // within 2..MAX_CALLERS once validated
        }
        return new ScenarioSettings(Duration.ofMillis(latencyMs), retryAt, callers, Duration.ofSeconds(leaseSeconds),
                key, onStoreFailure == OnStoreFailure.OPEN ? StoreFailureMode.FAIL_OPEN : StoreFailureMode.FAIL_CLOSED);
    }
}
