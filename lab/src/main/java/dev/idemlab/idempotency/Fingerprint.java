package dev.idemlab.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.idempotency.internal.CanonicalJson;
import dev.idemlab.idempotency.internal.Json;

import java.util.Map;
import java.util.Objects;

/**
 * A hash of the parts of a request that make it that request: SHA-256 (hex) of the canonical JSON
 * (RFC 8785 rules: sorted member names, no whitespace, ECMAScript number form, so {@code 5} and
 * {@code 5.0} agree) of the named fields only. Fields that differ between honest retries, such as a
 * timestamp or a trace id, are simply not named.
 *
 * <p>Immutable and thread-safe.
 */
public final class Fingerprint {

    private final String hex;

    private Fingerprint(String hex) {
        this.hex = hex;
    }

    /**
     * The fingerprint of the given named fields. Values may be anything Jackson can turn into JSON.
     *
     * @throws IllegalArgumentException if a value cannot be represented in JSON (NaN, infinity)
     */
    public static Fingerprint ofFields(Map<String, ?> namedFields) {
        Objects.requireNonNull(namedFields, "namedFields");
        return ofJson(Json.MAPPER.valueToTree(namedFields));
    }

    /**
     * The fingerprint of the named fields of {@code request}, a map, a record or a bean. A named field
     * the request lacks is fingerprinted as {@code null}, so that naming a field is always explicit.
     *
     * @throws IllegalArgumentException if no field is named or the request is not an object
     */
    public static Fingerprint ofNamed(Object request, String... fieldNames) {
        Objects.requireNonNull(request, "request");
        if (fieldNames.length == 0) {
            throw new IllegalArgumentException("name at least one field to fingerprint");
        }
        JsonNode tree = Json.MAPPER.valueToTree(request);
        if (!tree.isObject()) {
            throw new IllegalArgumentException("request must be an object to pick named fields from, got " + tree.getNodeType());
        }
        ObjectNode picked = Json.MAPPER.createObjectNode();
        for (String name : fieldNames) {
            JsonNode value = tree.get(name);
            picked.set(name, value == null ? picked.nullNode() : value);
        }
        return ofJson(picked);
    }

    /** The fingerprint of an already-built JSON tree. */
    public static Fingerprint ofJson(JsonNode json) {
        return new Fingerprint(CanonicalJson.sha256Hex(json));
    }

    /** A fingerprint computed elsewhere, as 64 lower-case hex characters. */
    public static Fingerprint ofHex(String hex) {
        if (hex == null || !hex.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("a fingerprint is 64 lower-case hex characters: " + hex);
        }
        return new Fingerprint(hex);
    }

    /** The SHA-256 as 64 lower-case hex characters. */
    public String hex() {
        return hex;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint other && hex.equals(other.hex);
    }

    @Override
    public int hashCode() {
        return hex.hashCode();
    }

    @Override
    public String toString() {
        return hex;
    }
}
