package dev.idemlab.examples.payments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which client key each key the provider was charged with came from. The service charges the provider
 * with the call's downstream key, derived from the record's scope and the client's key, never the
 * client's raw key (two clients' or two tenants' {@code 0001} would meet at a provider that deduplicates
 * on it); so the provider's ledger names only derived keys, and {@code GET /ledger} adds the client's
 * key behind each as {@code request_key}, for a black-box check to count a key's charges. Kept in
 * memory, for the check routes only. Thread-safe.
 */
@Component
public class ChargeKeys {

    private final Map<String, String> requestKeyByDownstreamKey = new ConcurrentHashMap<>();
    private final ObjectMapper json = new ObjectMapper();

    /** Notes that {@code downstreamKey} is charged for the client's {@code requestKey}, before the charge. */
    void charging(String downstreamKey, String requestKey) {
        if (downstreamKey != null && requestKey != null && !downstreamKey.equals(requestKey)) {
            requestKeyByDownstreamKey.putIfAbsent(downstreamKey, requestKey);
        }
    }

    /** The provider's ledger with each charge's {@code request_key} where this service derived its key; else as it is. */
    String annotate(String ledger) {
        JsonNode charges;
        try {
            charges = ledger == null ? null : json.readTree(ledger);
        } catch (java.io.IOException e) {
            return ledger;
        }
        if (charges == null || !charges.isArray()) {
            return ledger;
        }
        for (JsonNode charge : charges) {
            String requestKey = requestKeyByDownstreamKey.get(charge.path("idempotency_key").asText(""));
            if (requestKey != null && charge instanceof ObjectNode entry) {
                entry.put("request_key", requestKey);
            }
        }
        return charges.toString();
    }
}
