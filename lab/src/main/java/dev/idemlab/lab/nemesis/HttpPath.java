package dev.idemlab.lab.nemesis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Calls over real HTTP on 127.0.0.1 to the demo's charge route behind one of the library's HTTP filters
 * ({@link HttpServers}: the servlet filter as {@code lab serve} runs it, or the WebFlux filter on Reactor
 * Netty): one server per policy and store-failure mode (RAISE is the route's 409, WAIT its opt-in wait;
 * failing open or closed is the coordinator's setting), all over the run's store, so that the store's
 * faults reach the filter's coordinator exactly as they reach the bare one. Each request is sent by every
 * client with the same key for its own order ({@link HttpClients}). Synchronous callers block on the
 * response; asynchronous ones send without blocking and, where the workload cancels, give up: the client
 * cancels its exchange, which the JDK's client aborts, and the server goes on (HTTP has no cancel), so a
 * client that gave up is an error of the history's ("client-gave-up"), never a cancelled call. Holders in
 * child JVMs call the bare coordinator under another scope than the filter's, and the nemesis's
 * rejecting executor has no stage here: those faults are left out. Thread-safe; {@link #close()} stops
 * the servers.
 */
final class HttpPath implements CallPath {

    /** The history's error of a request the provider refused (a 502): its downstream key was another request's. */
    static final String PROVIDER_REFUSED = "provider-refused";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClients clients;
    private final HttpServerSide server;
    private final HttpServers servers;
    private final Callers callers;
    private final ExecutorService io;
    private final HttpClient http;

    private HttpPath(HttpClients clients, HttpServerSide server, HttpServers servers, Callers callers,
                     ExecutorService io) {
        this.clients = clients;
        this.server = server;
        this.servers = servers;
        this.callers = callers;
        this.io = io;
        this.http = HttpClient.newBuilder().executor(io).connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * Starts the servers of the filter {@code settings} name ({@link Through#WEBFLUX}: the WebFlux filter's;
     * else the servlet filter's) on ephemeral ports.
     *
     * @throws IOException when one cannot start (those started are stopped)
     */
    static HttpPath start(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                          FakePaymentProvider provider, Callers callers) throws IOException {
        HttpClients clients = HttpClients.of(settings.clients());
        HttpServerSide side = new HttpServerSide(callers, clients);
        HttpServers servers = settings.through() == Through.WEBFLUX
                ? WebFluxServers.start(settings, store, config, provider, side, callers)
                : ServletServers.start(settings, store, config, provider, side);
        return new HttpPath(clients, side, servers, callers, Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "nemesis-http-client");
            thread.setDaemon(true);
            return thread;
        }));
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
    public boolean plays(FaultKind kind) {
        return kind != FaultKind.REJECT_RESUMPTIONS && kind != FaultKind.PAUSE_HOLDER && kind != FaultKind.KILL_HOLDER;
    }

    @Override
    public void send(Workload.Caller caller, CallRecord record, Runnable answered) {
        if (caller.otherBody()) {
            record.asks(LoadKeys.amount(record.key) + 1);
        }
        HttpServerSide.Served served = server.expect(record, caller);
        HttpRequest request = request(caller, record);
        HttpClients.exchange(callers, http, request, caller, record, answered,
                response -> answer(record, served, response));
    }

    /** {@code POST /orders/{order}/charge} as the record's client sends it: its order number, its key, its amount. */
    private HttpRequest request(Workload.Caller caller, CallRecord record) {
        int request = HttpClients.requestOf(record.key);
        int client = HttpClients.clientOf(record.key);
        URI target = servers.uri(caller.policy(), caller.onStoreFailure());
        HttpRequest.Builder builder = HttpRequest.newBuilder(target.resolve("/orders/" + LoadKeys.orderId(request)
                        + "/charge"))
                .timeout(Duration.ofNanos(record.boundNanos))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "\"" + LoadKeys.key(request) + "\"")
                .header(HttpServerSide.CALL_HEADER, Integer.toString(record.id))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + record.amount() + "}"));
        if (!clients.anonymous(client)) {
            builder.header("Authorization", "Bearer " + clients.names().get(client));
        }
        return builder.build();
    }

    /**
     * Records what the client got: a charge (its outcome as the coordinator told the filter, or, for an
     * answer the coordinator never gave this request, a replay), or the error the status stands for.
     */
    private void answer(CallRecord record, HttpServerSide.Served served, HttpResponse<String> response)
            throws IOException {
        long now = callers.now();
        int status = response.statusCode();
        if (status == 201 || status == 200) {
            JsonNode charge = JSON.readTree(response.body());
            Outcome outcome = served.outcome != null ? served.outcome
                    : response.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isPresent()
                    ? Outcome.REPLAYED : Outcome.EXECUTED;
            record.answered(now, charge.path("id").asText(), outcome);
            return;
        }
        String key = LoadKeys.key(HttpClients.requestOf(record.key));
        switch (status) {
            case 409 -> record.failed(now, new IdempotencyInProgressException(IdempotencyFilter.class.getSimpleName(),
                    key, Duration.ZERO));
            case 422 -> record.failed(now, new IdempotencyKeyReuseException(IdempotencyFilter.class.getSimpleName(),
                    key, "?", "?", false));
            case 503 -> record.failed(now, new IdempotencyStoreUnavailableException(IdempotencyFilter.class
                    .getSimpleName(), key, "the route's store", StorePhase.RESERVE, new IOException("HTTP 503")));
            case 504 -> record.failed(now, new ProviderTimeoutException(LoadKeys.orderId(record.key)));
            case 502 -> record.failed(now, PROVIDER_REFUSED);
            default -> record.failed(now, "http-" + status);
        }
    }

    @Override
    public IdempotencyStats stats() {
        return servers.stats();
    }

    @Override
    public void close() {
        try {
            servers.close();
        } finally {
            io.shutdownNow();
        }
    }
}
