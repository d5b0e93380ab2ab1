package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;

import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The history's view from inside the servers, for calls over HTTP: which call of the history a
 * request is (a header the route neither fingerprints nor replays), when its action started and under
 * which fence (the filter's action sees no context, so an observer around the route's coordinator
 * records it), what the coordinator answered, and the action itself, behind the server's own handler:
 * the provider it charges takes the call's time, fails where planned, and names the order by the account
 * that sent it (each client's order 7 is its own). Nothing here decides anything the filter decides.
 * The hooks into the servlet filter's demo server are here ({@link #tagger()}, {@link #observe},
 * {@link #provider}); the WebFlux filter's are {@link WebFluxServers}'s, over the same calls and action.
 * Thread-safe.
 */
final class HttpServerSide {

    /** The request header that names the call of the history. */
    static final String CALL_HEADER = "X-Nemesis-Call";

    private final Map<Integer, Served> calls = new ConcurrentHashMap<>();
    private final ThreadLocal<Served> current = new ThreadLocal<>();
    private final Callers callers;
    private final HttpClients clients;

    HttpServerSide(Callers callers, HttpClients clients) {
        this.callers = callers;
        this.clients = clients;
    }

    /** One call as the server sees it: the history's record, the caller's plan, and what the coordinator answered. */
    static final class Served {
        final CallRecord record;
        final Workload.Caller caller;
        volatile int account = -1;
        volatile Outcome outcome;

        Served(CallRecord record, Workload.Caller caller) {
            this.record = record;
            this.caller = caller;
        }
    }

    /**
     * Registers {@code record} before its request is sent, for the whole run: a client that gave up has
     * not stopped its request, which the server may still run.
     */
    Served expect(CallRecord record, Workload.Caller caller) {
        Served served = new Served(record, caller);
        calls.put(record.id, served);
        return served;
    }

    /** The call a request names in its {@link #CALL_HEADER} ({@code null}: none), or {@code null} when none of the run's. */
    Served served(String callHeader) {
        return callHeader == null ? null : calls.get(Integer.parseInt(callHeader));
    }

    /**
     * Tells {@code served} which client the server authenticated it as ({@code null}: none), so that its
     * charge names that client's own order: the account is what the server saw, never what the filter
     * scoped the key by, so a filter whose scoping broke still charges the sender's order.
     */
    void authenticated(Served served, String principal) {
        served.account = clients.indexOf(principal);
    }

    /** Between the client authentication and the idempotency filter: tells the request's call and its account. */
    Filter tagger() {
        return (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            Served served = served(http.getHeader(CALL_HEADER));
            if (served != null) {
                Principal principal = http.getUserPrincipal();
                authenticated(served, principal == null ? null : principal.getName());
            }
            current.set(served);
            try {
                chain.doFilter(request, response);
            } finally {
                current.remove();
            }
        };
    }

    /** What the route's filter calls: {@code coordinator}, watched. */
    IdempotencyCoordinator observe(IdempotencyCoordinator coordinator) {
        return new Observed(coordinator);
    }

    /** The provider the demo's handler charges: {@code provider}, with the call's action around each charge. */
    PaymentProvider provider(FakePaymentProvider provider) {
        return new AccountOrders(provider);
    }

    /**
     * The workload's action for {@code served}, as a server's handler runs it: it takes the call's time,
     * fails where planned (a provider timeout), and charges the order of the account that sent it.
     *
     * @throws IllegalStateException when no call of the history is behind the charge
     */
    Charge charge(FakePaymentProvider provider, Served served, ChargeRequest request) {
        if (served == null) {
            throw new IllegalStateException("a charge for " + request.orderId() + " outside any call of the history");
        }
        try {
            Thread.sleep(served.caller.actionMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the server stopped during " + request.orderId() + "'s action", e);
        }
        if (served.caller.actionFails()) {
            throw new ProviderTimeoutException(request.orderId());
        }
        int key = clients.historyKey(LoadKeys.indexOfOrder(request.orderId()), served.account);
        Charge charge = provider.charge(new ChargeRequest(LoadKeys.orderId(key), request.amount(),
                request.idempotencyKey(), request.fence()));
        served.record.charged(charge.id());
        return charge;
    }

    /**
     * Passes every call on, recording the action's start and fence, the call's outcome, and when its
     * attempt ended on the server (a client that gave up does not end it).
     */
    private final class Observed implements IdempotencyCoordinator {

        private final IdempotencyCoordinator coordinator;

        Observed(IdempotencyCoordinator coordinator) {
            this.coordinator = coordinator;
        }

        @Override
        public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                                 ContextualAction<T, E> action) throws E {
            Served served = current.get();
            if (served == null) {
                return coordinator.call(call, codec, action);
            }
            try {
                IdempotentResult<T> result = coordinator.call(call, codec, context -> {
                    CoordinatorPath.started(callers, served.record, context);
                    return action.run(context);
                });
                served.outcome = result.outcome();
                return result;
            } finally {
                served.record.attemptEnded(callers.now());
            }
        }

        @Override
        public IdempotencyConfig config() {
            return coordinator.config();
        }

        @Override
        public StoreDescription store() {
            return coordinator.store();
        }

        @Override
        public IdempotencyStats stats() {
            return coordinator.stats();
        }
    }

    /** The workload's action behind the demo's handler; each account's order number names its own order. */
    private final class AccountOrders implements PaymentProvider {

        private final FakePaymentProvider provider;

        AccountOrders(FakePaymentProvider provider) {
            this.provider = provider;
        }

        @Override
        public Charge charge(ChargeRequest request) {
            return HttpServerSide.this.charge(provider, current.get(), request);
        }

        @Override
        public List<Charge> ledger() {
            return provider.ledger();
        }

        @Override
        public Optional<Charge> findCharge(String id) {
            return provider.findCharge(id);
        }
    }
}
