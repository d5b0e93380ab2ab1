package dev.idemlab.examples.payments;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The provider's ledger ({@code GET /ledger}) and fault hook ({@code POST /faults}) passed through on
 * the service's own origin, so that a black-box check (the lab's probe) can count the charges each
 * key made and provoke a provider failure. A service for real money would not offer them.
 * Thread-safe.
 */
@RestController
public class ProviderRoutes {

    private final ProviderClient provider;
    private final ChargeKeys chargeKeys;

    ProviderRoutes(ProviderClient provider, ChargeKeys chargeKeys) {
        this.provider = provider;
        this.chargeKeys = chargeKeys;
    }

    /** The provider's ledger, each charge with the client key its downstream key came from ({@link ChargeKeys}). */
    @GetMapping(path = "/ledger", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> ledger() {
        ResponseEntity<String> answer = provider.ledger();
        return passOn(answer.getStatusCode().is2xxSuccessful()
                ? ResponseEntity.status(answer.getStatusCode()).headers(answer.getHeaders())
                        .body(chargeKeys.annotate(answer.getBody()))
                : answer);
    }

    @PostMapping(path = "/faults", consumes = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> faults(@RequestBody String order) {
        return passOn(provider.faults(order));
    }

    private static ResponseEntity<String> passOn(ResponseEntity<String> answer) {
        ResponseEntity.BodyBuilder builder = ResponseEntity.status(answer.getStatusCode());
        if (answer.getHeaders().getContentType() != null) {
            builder.contentType(answer.getHeaders().getContentType());
        }
        return builder.body(answer.getBody());
    }
}
