package dev.idemlab.lab.nemesis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.http.SpringSampleJar;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Calls over real HTTP on 127.0.0.1 to the Spring Boot sample ({@code examples/spring-boot-payments}) in
 * a JVM of its own ({@link SampleJvm}), started from the jar the reactor builds, as a team runs it: the
 * starter's reservation, WAIT, failing closed, the call's downstream key passed to the provider. Its store
 * client reaches the run's store through the nemesis's proxy (the endpoint the run's own store client
 * uses, and its key prefix), so the store's faults reach it as they reach the bare coordinator; its
 * provider is the run's, behind the provider's HTTP service in this JVM, whose ledger the checker reads.
 * Two bearer clients send every request, each under keys of its own ({@code load-7} and
 * {@code load-990007}) for its own order: the sample refuses another client's request on a key, by
 * its fingerprint, so keys shared across clients would only be refused. The sample's JVM is the holder
 * the holder faults pause and kill. Its sabotage is its result-cache mode (the post's baseline). Every
 * caller runs under the sample's one policy and failure mode, whatever the workload drew; the history
 * says so. Thread-safe; {@link #close()} stops the sample and the provider's service.
 */
final class SamplePath implements CallPath {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /**
     * The history's error of a call sent while a killed sample was starting again. Not sent later: every
     * call of a restart's seconds arriving at once would be a flood the workload never sends.
     */
    static final String SAMPLE_DOWN = "sample-down";

    private final HttpClients clients = new HttpClients(List.of("client-a", "client-b"), -1);
    private final ProviderService providerService;
    private final SampleJvm sample;
    private final SampleCharges charges;
    private final FakePaymentProvider provider;
    private final Callers callers;
    /** Whether the sample runs on the starter's reservation: not in its result-cache mode (the sabotage). */
    private final boolean reserves;
    private final ExecutorService io;
    private final HttpClient http;

    private SamplePath(ProviderService providerService, SampleJvm sample, SampleCharges charges, Callers callers,
                       boolean reserves) {
        this.reserves = reserves;
        this.providerService = providerService;
        this.sample = sample;
        this.charges = charges;
        this.provider = providerService.provider();
        this.callers = callers;
        this.io = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "nemesis-sample-client");
            thread.setDaemon(true);
            return thread;
        });
        this.http = HttpClient.newBuilder().executor(io).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * Starts the provider's service and the sample on {@code store}'s server and prefix.
     *
     * @throws IllegalStateException when the sample's jar was not built (naming where the lab looked and
     *     the command that builds it), or the sample does not come up (with its log's tail)
     * @throws IllegalArgumentException when {@code store} is one no other process can reach
     */
    static SamplePath start(NemesisSettings settings, IdempotencyStore store, FakePaymentProvider provider,
                            SampleCharges charges, Callers callers) throws IOException, InterruptedException {
        Path jar = SpringSampleJar.find().orElseThrow(() -> new IllegalStateException(SpringSampleJar.missing()));
        StoreEndpoint endpoint = StoreEndpoint.sameAs(store).filter(each -> !each.kind().equals("redis-cluster"))
                .orElseThrow(() -> new IllegalArgumentException("through sample runs the Spring Boot sample on a "
                        + "single Redis or a PostgreSQL server, which its JVM can reach: not on the "
                        + store.getClass().getSimpleName()));
        ProviderService service = ProviderService.start(provider);
        try {
            SampleJvm jvm = SampleJvm.start(jar, arguments(settings, store, endpoint, service.uri()),
                    endpoint.springEnvironment(), settings.lease());
            SamplePath path = new SamplePath(service, jvm, charges, callers, settings.sabotage() != Sabotage.RESULT_CACHE);
            try {
                path.warmUp();
            } catch (IOException | RuntimeException | InterruptedException e) {
                path.close();
                throw e;
            }
            return path;
        } catch (IOException | RuntimeException | InterruptedException e) {
            service.close();
            throw e;
        }
    }

    /**
     * A few charges off the record before the run, so that a freshly started JVM does not meet the
     * workload cold: the provider is told to fail them before charging, so the ledger stays empty.
     */
    private void warmUp() throws IOException, InterruptedException {
        int requests = 4;
        provider.failNextCalls(requests);
        for (int i = 0; i < requests; i++) {
            http.send(HttpRequest.newBuilder(sample.uri().resolve("/orders/warm-up/charge"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                    .header("Idempotency-Key", "\"warm-up-" + i + "\"")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")).build(),
                    HttpResponse.BodyHandlers.discarding());
        }
        if (!provider.ledger().isEmpty()) {
            throw new IllegalStateException("the sample's warm-up charged " + provider.chargeIds() + ": the run would count it");
        }
    }

    /** The sample's settings: its mode, WAIT, the run's lease, failing closed, the run's key prefix and provider. */
    private static List<String> arguments(NemesisSettings settings, IdempotencyStore store, StoreEndpoint endpoint,
                                          URI provider) {
        List<String> arguments = new ArrayList<>();
        arguments.add("--idempotency.store=" + endpoint.kind());
        arguments.add("--idempotency.key-prefix=" + StoreEndpoint.prefixOf(store));
        arguments.add("--payments.idempotency="
                + (settings.sabotage() == Sabotage.RESULT_CACHE ? "result-cache" : "reservation"));
        arguments.add("--idempotency.policy=wait");
        arguments.add("--idempotency.lease=" + settings.lease().toMillis() + "ms");
        arguments.add("--idempotency.store-failure-mode=fail-closed");
        arguments.add("--payments.provider-url=" + provider);
        arguments.add("--logging.level.root=WARN");
        // The workload keeps coming while the JVM is paused: what queued meanwhile waits to be served, as
        // behind a load balancer, rather than being refused by Tomcat's default backlog of 100.
        arguments.add("--server.tomcat.accept-count=2000");
        arguments.add("--server.tomcat.threads.max=400");
        return arguments;
    }

    @Override
    public List<String> clients() {
        return clients.names();
    }

    @Override
    public int historyKey(int request, int client) {
        return clients.historyKey(request, client);
    }

    @Override
    public InFlightPolicy policy(Workload.Caller caller) {
        return InFlightPolicy.WAIT;
    }

    @Override
    public StoreFailureMode onStoreFailure(Workload.Caller caller) {
        return StoreFailureMode.FAIL_CLOSED;
    }

    /** The callers' rejecting executor has no stage here: every call is the JDK client's. */
    @Override
    public boolean plays(FaultKind kind) {
        return kind != FaultKind.REJECT_RESUMPTIONS;
    }

    @Override
    public HolderFaults holderFaults() {
        return sample;
    }

    @Override
    public void send(Workload.Caller caller, CallRecord record, Runnable answered) {
        if (caller.otherBody()) {
            record.asks(LoadKeys.amount(record.key) + 1);
        }
        // While a killed sample comes back, its connection is refused: the call fails at once, as a client's would.
        URI target = sample.uri();
        if (target == null) {
            record.sent(callers.now());
            record.failed(callers.now(), SAMPLE_DOWN);
            answered.run();
            return;
        }
        send(caller, record, target, answered);
    }

    /** Sends the record's request to the sample at {@code target}, synchronously on a caller's thread or not. */
    private void send(Workload.Caller caller, CallRecord record, URI target, Runnable answered) {
        HttpRequest request = request(target, record);
        HttpClients.exchange(callers, http, request, caller, record, answered, response -> answer(record, response));
    }

    /** {@code POST /orders/{order}/charge} as the record's client sends it: its own order, its own key, its amount. */
    private HttpRequest request(URI target, CallRecord record) {
        int client = HttpClients.clientOf(record.key);
        return HttpRequest.newBuilder(target.resolve("/orders/" + LoadKeys.orderId(record.key) + "/charge"))
                .timeout(Duration.ofNanos(record.boundNanos))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "\"" + LoadKeys.key(record.key) + "\"")
                .header("Authorization", "Bearer " + clients.names().get(client))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + record.amount() + "}"))
                .build();
    }

    /**
     * Records what the client got: a charge, made for this request unless the sample marked the answer a
     * replay, or the error the status stands for.
     */
    private void answer(CallRecord record, HttpResponse<String> response) throws IOException {
        long now = callers.now();
        int status = response.statusCode();
        if (status == 201 || status == 200) {
            JsonNode charge = JSON.readTree(response.body());
            boolean replayed = response.headers().firstValue(REPLAYED_HEADER).isPresent();
            record.answered(now, charge.path("id").asText(), replayed ? Outcome.REPLAYED : Outcome.EXECUTED);
            return;
        }
        String key = LoadKeys.key(record.key);
        String route = "the sample's charge route";
        switch (status) {
            case 409 -> record.failed(now, new IdempotencyInProgressException(route, key, Duration.ZERO));
            case 422 -> record.failed(now, new IdempotencyKeyReuseException(route, key, "?", "?", false));
            case 503 -> record.failed(now, new IdempotencyStoreUnavailableException(route, key, "the sample's store",
                    StorePhase.RESERVE, new IOException("HTTP 503")));
            case 502 -> record.failed(now, "provider-failed");
            default -> record.failed(now, "http-" + status);
        }
    }

    /**
     * Ties each charge of the ledger to the call that made it ({@link SampleAttribution}); on the starter's
     * reservation, flags every charge that reached the provider without a downstream key.
     */
    @Override
    public List<Violation> check(List<CallRecord> calls) {
        SampleAttribution.attribute(calls, provider.ledger(), charges, reserves);
        return reserves ? withoutDownstreamKey(provider.ledger()) : List.of();
    }

    /**
     * The charges of {@code ledger} made without a downstream key. The sample hands the provider each call's
     * key, so that a provider deduplicating on it charges once where the reservation could not hold (a
     * holder paused or killed past its lease): a charge without one breaks that half of its contract,
     * whether or not this run's faults happened to put a second charge beside it.
     */
    static List<Violation> withoutDownstreamKey(List<Charge> ledger) {
        return ledger.stream().filter(charge -> charge.idempotencyKey() == null || charge.idempotencyKey().isBlank())
                .map(charge -> new Violation("no-downstream-key", LoadKeys.indexOfOrder(charge.orderId()),
                        "charge " + charge.id() + " of order " + charge.orderId() + " reached the provider without the "
                                + "call's downstream key: a provider deduplicating on it could not stop a second charge"))
                .toList();
    }

    /** The sample's coordinator counts in its own JVM, which a kill resets: none are read here. */
    @Override
    public IdempotencyStats stats() {
        return NemesisHistory.sum(List.of());
    }

    /** Where the sample serves and its pid, for the report. */
    String describe() {
        return "the Spring Boot sample (pid " + sample.pid() + ") at " + sample.uri();
    }

    @Override
    public void close() {
        try {
            sample.close();
        } finally {
            providerService.close();
            io.shutdownNow();
        }
    }
}
