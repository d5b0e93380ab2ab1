package dev.idemlab.lab.scenario;

import com.stripe.Stripe;
import com.stripe.StripeClient;
import com.stripe.exception.StripeException;
import com.stripe.param.ChargeCreateParams;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.AttemptLog;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The post's first table with a real client: an unmodified Stripe Java SDK, pointed at the demo
 * server's Stripe-compatible route ({@code POST /v1/charges}), with a read timeout shorter than the
 * provider and network retries on. Nobody scripts a second caller: the SDK times out on its side and
 * sends the identical request with the identical key, as the post's client does, while the first is
 * still inside the provider. The row is the SDK's final answer beside the provider's ledger, and the
 * note says what the SDK did, as the server saw each of its attempts.
 */
public final class StripeInFlightScenario implements Scenario {

    /** The provider's latency by default: long enough for the SDK's first retry to find the first call running. */
    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(3000);
    /** The SDK's read timeout by default. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofMillis(1000);
    /**
     * The SDK's network retries: enough for its 409s to be retried until the first call has finished,
     * with seconds to spare (it sleeps about 0.5, 1, 2, 4 s before them).
     */
    public static final int MAX_NETWORK_RETRIES = 4;
    /** The SDK's shortest sleep before a retry (its {@code HttpClient.minNetworkRetriesDelay}). */
    public static final Duration SDK_MIN_RETRY_DELAY = Duration.ofMillis(500);
    /** The client's name in rows and diagrams. */
    public static final String CLIENT = "stripe-java " + Stripe.VERSION;
    private static final String API_KEY = "sk_test_idempotency_lab";

    private final Duration latency;
    private final Duration readTimeout;

    /**
     * @param latency how long the provider takes per charge
     * @param readTimeout the SDK's read timeout; with its least sleep before a retry, shorter than {@code latency}
     * @throws IllegalArgumentException when the SDK's first retry could not find the first call in flight
     */
    public StripeInFlightScenario(Duration latency, Duration readTimeout) {
        this.latency = Objects.requireNonNull(latency, "latency");
        this.readTimeout = Objects.requireNonNull(readTimeout, "readTimeout");
        String broken = brokenTimingRule(latency, readTimeout);
        if (broken != null) {
            throw new IllegalArgumentException(broken);
        }
    }

    /** The scenario with its defaults: a 3000 ms provider, a 1000 ms read timeout. */
    public static StripeInFlightScenario withDefaults() {
        return new StripeInFlightScenario(DEFAULT_LATENCY, DEFAULT_READ_TIMEOUT);
    }

    /**
     * The rule a latency and read timeout break, or {@code null}: the SDK retries no sooner than 500 ms
     * after its read timeout, so its retry finds the first request in flight only when the read timeout
     * plus 500 ms is shorter than the provider's latency.
     */
    public static String brokenTimingRule(Duration latency, Duration readTimeout) {
        if (readTimeout.toMillis() < 1 || readTimeout.plus(SDK_MIN_RETRY_DELAY).compareTo(latency) >= 0) {
            return "the SDK retries " + SDK_MIN_RETRY_DELAY.toMillis() + " ms or more after its read timeout, so its "
                    + "retry finds the first request in flight only when the read timeout (" + readTimeout.toMillis()
                    + " ms) plus " + SDK_MIN_RETRY_DELAY.toMillis() + " ms is shorter than the provider's latency ("
                    + latency.toMillis() + " ms), and the read timeout is at least 1 ms";
        }
        return null;
    }

    @Override
    public String name() {
        return "in-flight";
    }

    @Override
    public String cannotCallThroughProxy() {
        return "the Stripe Java SDK sends HTTP requests to the demo server, whose filter calls the coordinator";
    }

    @Override
    public String summary() {
        return "the first request times out in " + CLIENT + " (read timeout " + readTimeout.toMillis()
                + " ms), and the SDK's own retry with the same key arrives while it is still inside the "
                + latency.toMillis() + " ms provider";
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return List.of(LabPolicy.values());
    }

    @Override
    public List<String> fixedOptions() {
        return List.of("--callers", "--retry-at-ms", "--key");
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        ScenarioSettings settings = context.settings();
        IdempotencyConfig config = IdempotencyConfig.custom().lease(settings.lease())
                .storeFailureMode(settings.storeFailureMode()).build();
        try (IdempotencyStore store = context.backend().openStore()) {
            warmUp(store, policy, config);
            Timeline timeline = new Timeline();
            FakePaymentProvider provider = FakePaymentProvider.builder().latency(latency).observer(timeline).build();
            try (DemoServer server = DemoServer.start(store, policy, config, provider, provider::failNextCalls, 0)) {
                timeline.restart();
                long startNanos = System.nanoTime();
                long startMs = timeline.nowMs();
                String response;
                boolean answered;
                try {
                    response = sdk(server).v1().charges().create(params()).getId();
                    answered = true;
                } catch (StripeException e) {
                    response = e.getClass().getSimpleName() + (e.getCode() == null ? "" : " (" + e.getCode() + ")");
                    answered = false;
                }
                long endMs = timeline.nowMs();
                // The attempts the SDK gave up on are still running: the ledger is read once all are answered.
                if (!server.awaitStripeAttemptsAnswered(latency.multipliedBy(4).plusSeconds(30))) {
                    throw new IllegalStateException("the SDK's attempts were still running " + latency.multipliedBy(4)
                            .plusSeconds(30).toSeconds() + " s after its answer: the ledger cannot be read yet");
                }
                List<AttemptLog.Attempt> attempts = server.stripeAttempts().stream()
                        .sorted(java.util.Comparator.comparingLong(AttemptLog.Attempt::sentAt)).toList();
                for (int i = 0; i < attempts.size(); i++) {
                    AttemptLog.Attempt attempt = attempts.get(i);
                    timeline.recordAt(attempt.sentAt(), CLIENT, Timeline.COORDINATOR, "attempt #" + (i + 1)
                            + ": POST /v1/charges, Idempotency-Key " + attempt.key(), false);
                    timeline.recordAt(attempt.answeredAt(), Timeline.COORDINATOR, CLIENT, attempt.answer()
                            + (timedOut(attempt) ? " (the SDK had stopped waiting)" : ""), true);
                }
                Map<String, Object> reported = context.reportedSettings();
                reported.put("latencyMs", latency.toMillis());
                // The SDK made the key: every attempt carried the same one, as the server saw it.
                reported.put("key", attempts.stream().map(AttemptLog.Attempt::key).distinct()
                        .map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")));
                reported.put("client", CLIENT);
                reported.put("readTimeoutMs", readTimeout.toMillis());
                reported.put("maxNetworkRetries", MAX_NETWORK_RETRIES);
                reported.put("transport", "http");
                String outcome = (answered ? "answered" : "error") + " after " + attempts.size() + " attempts";
                CallerResult caller = new CallerResult(CLIENT, startMs, endMs, response, outcome, provider.chargeCount());
                return new ScenarioRun(name(), StagedScenario.policyName(policy), DemoRaceApi.TARGET.label(policy),
                        context.backend().server(), reported, List.of(caller), provider.chargeIds(),
                        server.coordinator().stats().totalStorageErrors(), note(server, attempts, startNanos),
                        timeline.events());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the demo server could not start", e);
        }
    }

    /** What the SDK did, attempt by attempt, as the server saw it. */
    private String note(DemoServer server, List<AttemptLog.Attempt> attempts, long startNanos) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < attempts.size(); i++) {
            AttemptLog.Attempt attempt = attempts.get(i);
            long sent = (attempt.sentAt() - startNanos) / 1_000_000;
            long took = (attempt.answeredAt() - attempt.sentAt()) / 1_000_000;
            lines.add("#" + (i + 1) + " at " + sent + " ms: " + attempt.answer() + " after " + took + " ms"
                    + (timedOut(attempt) ? " (the SDK had timed out)" : ""));
        }
        return CLIENT + " (read timeout " + readTimeout.toMillis() + " ms, " + MAX_NETWORK_RETRIES
                + " network retries) against " + server.uri() + "/v1/charges; its attempts as the server saw them: "
                + String.join("; ", lines);
    }

    private boolean timedOut(AttemptLog.Attempt attempt) {
        return attempt.answeredAt() - attempt.sentAt() >= readTimeout.toNanos();
    }

    /** Jetty, the filter and the SDK warmed up on a throwaway server and provider, off the record. */
    private static void warmUp(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config) throws IOException {
        FakePaymentProvider scratch = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        try (DemoServer server = DemoServer.start(store, policy, config, scratch, scratch::failNextCalls, 0)) {
            client(server, Duration.ofSeconds(30)).v1().charges().create(params());
        } catch (StripeException e) {
            throw new IllegalStateException("the SDK's warm-up call failed: " + e.getMessage(), e);
        }
    }

    /** The SDK as the scenario runs it: network retries on, the read timeout shorter than the provider. */
    private StripeClient sdk(DemoServer server) {
        return client(server, readTimeout);
    }

    private static StripeClient client(DemoServer server, Duration readTimeout) {
        return StripeClient.builder().setApiKey(API_KEY).setApiBase(server.uri().toString())
                .setMaxNetworkRetries(MAX_NETWORK_RETRIES).setConnectTimeout(10_000)
                .setReadTimeout((int) readTimeout.toMillis()).build();
    }

    private static ChargeCreateParams params() {
        return ChargeCreateParams.builder().setAmount(ScenarioSettings.AMOUNT).setCurrency("usd")
                .putMetadata("order_id", ScenarioSettings.ORDER_ID).build();
    }
}
