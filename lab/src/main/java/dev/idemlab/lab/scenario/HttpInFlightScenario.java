package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.ChargeRequest;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.PaymentProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The post's first table through real HTTP: a payment API on 127.0.0.1 ({@link RaceApi}: the lab's demo
 * server behind the idempotency filter, or the Spring Boot sample in a child JVM) on the run's store, and
 * callers that are JDK {@code HttpClient}s sending {@code POST /orders/order-42/charge} with the same
 * Idempotency-Key. Caller A at 0, callers B..N at the retry time. A response is the charge id of a 2xx,
 * or the status otherwise ({@code 409}). Thread-safe.
 */
public final class HttpInFlightScenario implements Scenario {

    private static final Pattern CHARGE_ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    private static final String CLIENT = "client-a";

    private final InFlightScenario inProcess = new InFlightScenario();
    private final RaceApi.Target target;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** The race against the lab's demo server: {@code --transport http}. */
    public HttpInFlightScenario() {
        this(DemoRaceApi.TARGET);
    }

    private HttpInFlightScenario(RaceApi.Target target) {
        this.target = target;
    }

    /** The race against the Spring Boot sample in a child JVM: {@code --target spring-sample}. */
    public static HttpInFlightScenario throughSpringSample() {
        return new HttpInFlightScenario(SampleRaceApi.TARGET);
    }

    @Override
    public String name() {
        return inProcess.name();
    }

    @Override
    public String summary() {
        return inProcess.summary() + ", " + target.summary();
    }

    @Override
    public String cannotCallThroughProxy() {
        return target == SampleRaceApi.TARGET
                ? "the holder is the Spring Boot sample in a child JVM, whose @Idempotent beans run on the starter's "
                        + "advice; the lab's callers only send it HTTP requests"
                : "the callers send HTTP requests to the demo server, whose filter calls the coordinator";
    }

    @Override
    public List<LabPolicy> policiesForAll() {
        return inProcess.policiesForAll();
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        ScenarioSettings settings = context.settings();
        try (IdempotencyStore store = context.backend().openStore()) {
            Timeline timeline = new Timeline();
            try (RaceApi api = target.start(context, store, policy, timeline, this::send)) {
                List<CallerResult> callers = stage(api.uri(), timeline, api.ledger(), settings);
                Map<String, Object> reported = context.reportedSettings();
                reported.put("retryAtMs", settings.retryAt().toMillis());
                reported.put("callers", settings.callers());
                reported.put("transport", "http");
                if (target.reportedName() != null) {
                    reported.put("target", target.reportedName());
                }
                return new ScenarioRun(name(), StagedScenario.policyName(policy), target.label(policy),
                        context.backend().server(), reported, callers, api.ledger().chargeIds(),
                        api.storageErrors(), api.note(), timeline.events());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the payment API could not start", e);
        }
    }

    private List<CallerResult> stage(URI uri, Timeline timeline, PaymentProvider provider, ScenarioSettings settings)
            throws InterruptedException {
        long startNanos = System.nanoTime();
        CallerResult[] results = new CallerResult[settings.callers()];
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < settings.callers(); i++) {
            int index = i;
            long arriveAtNanos = startNanos + (i == 0 ? 0 : settings.retryAt().toNanos());
            String name = InFlightScenario.callerName(i);
            Thread caller = new Thread(() -> {
                sleepUntil(arriveAtNanos);
                results[index] = call(uri, name, timeline, provider, settings);
            }, name);
            caller.start();
            callers.add(caller);
        }
        for (Thread caller : callers) {
            caller.join();
        }
        return Arrays.asList(results);
    }

    private CallerResult call(URI uri, String name, Timeline timeline, PaymentProvider provider,
                              ScenarioSettings settings) {
        long start = timeline.nowMs();
        timeline.record(name, Timeline.COORDINATOR, "POST /orders/" + ScenarioSettings.ORDER_ID + "/charge "
                + ScenarioSettings.AMOUNT + ", Idempotency-Key " + settings.key(), false);
        String response;
        String outcome;
        try {
            HttpResponse<String> answer = send(uri, settings.key(), ScenarioSettings.AMOUNT);
            Matcher id = CHARGE_ID.matcher(answer.body());
            boolean ok = answer.statusCode() / 100 == 2 && id.find();
            response = ok ? id.group(1) : Integer.toString(answer.statusCode());
            outcome = !ok ? "error" : answer.headers().firstValue("Idempotent-Replayed").isPresent() ? "replayed" : "executed";
        } catch (IOException e) {
            response = e.getClass().getSimpleName();
            outcome = "error";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response = "interrupted";
            outcome = "error";
        }
        timeline.record(Timeline.COORDINATOR, name, response + ("error".equals(outcome) ? "" : " (" + outcome + ")"), true);
        return new CallerResult(name, start, timeline.nowMs(), response, outcome, provider.chargeCount());
    }

    private HttpResponse<String> send(URI uri, String key, long amount) throws IOException, InterruptedException {
        return http.send(ChargeRequest.of(uri, CLIENT, ScenarioSettings.ORDER_ID, amount, key),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void sleepUntil(long atNanos) {
        long left = atNanos - System.nanoTime();
        if (left > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
