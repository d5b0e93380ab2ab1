package dev.idemlab.examples.payments.webflux;

import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * The charge route, which the WebFlux filter guards ({@code idempotency.web.routes}), and the check
 * routes a black-box probe reads: the provider's ledger and its fault hook. The handler is reactive
 * all the way: it never blocks, and the provider's latency is a timer, not a sleeping thread.
 */
@RestController
class ChargeRoutes {

    private final Ledger ledger;
    private final PaymentsProperties properties;

    ChargeRoutes(Ledger ledger, PaymentsProperties properties) {
        this.ledger = ledger;
        this.properties = properties;
    }

    /** A charge request: the amount in minor units. */
    record ChargeRequest(long amount) { }

    /**
     * Charges the order once per key: the filter replays a retry, so this runs once. The provider is
     * charged with the filter's downstream key (scoped per client), never the client's raw key.
     */
    @PostMapping(path = "/orders/{order}/charge", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<Map<String, Object>>> charge(@PathVariable String order, @RequestBody ChargeRequest request,
                                                     ServerWebExchange exchange) {
        if (request.amount() <= 0) {
            return Mono.just(ResponseEntity.badRequest().body(Map.of("error", "amount must be positive")));
        }
        String downstreamKey = exchange.getAttribute(IdempotencyWebFilter.DOWNSTREAM_KEY_ATTRIBUTE);
        String requestKey = exchange.getAttribute(IdempotencyWebFilter.KEY_ATTRIBUTE);
        return Mono.delay(properties.providerLatency())
                .map(tick -> ledger.charge(order, request.amount(), downstreamKey, requestKey))
                .map(charge -> ResponseEntity.created(URI.create("/charges/" + charge.get("id"))).body(charge))
                .onErrorResume(Ledger.ProviderDownException.class, down -> Mono.just(
                        ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(Map.of("error", down.getMessage()))));
    }

    /** Every charge the provider made, each with the client key it was made for. */
    @GetMapping(path = "/ledger", produces = MediaType.APPLICATION_JSON_VALUE)
    List<Map<String, Object>> ledger() {
        return ledger.charges();
    }

    /** {@code {"fail_next": N}}: the provider fails its next N charges before making them. */
    @PostMapping(path = "/faults", consumes = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<Void> faults(@RequestBody Map<String, Integer> order) {
        ledger.failNext(order.getOrDefault("fail_next", 0));
        return ResponseEntity.noContent().build();
    }
}
