package dev.idemlab.idempotency;

import dev.idemlab.idempotency.internal.CanonicalJson;
import dev.idemlab.idempotency.internal.JacksonSupport;
import dev.idemlab.idempotency.internal.OptionalDependencies;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A hash of the parts of a request that make it that request: SHA-256 (hex) of the canonical JSON
 * of the named fields only, written exactly as RFC 8785 (JCS) writes it, so a fingerprint computed
 * by any conformant canonicalizer elsewhere ({@link #ofHex}) agrees with one computed here. Member
 * order does not matter, and numbers are compared as JSON numbers: {@code 5} and {@code 5.0} agree.
 * Integers beyond 2<sup>53</sup> are refused, since JSON numbers are doubles and two such amounts
 * could share a fingerprint; send them as strings. Fields that differ between honest retries, such as
 * a timestamp or a trace id, are simply not named.
 *
 * <p>Maps, lists, strings, numbers, booleans, enums and records are fingerprinted by the core alone.
 * Other values (beans, Jackson trees) need {@code jackson-databind} on the class path.
 *
 * <p>Immutable and thread-safe.
 */
public final class Fingerprint {

    private final String hex;

    private Fingerprint(String hex) {
        this.hex = hex;
    }

    /**
     * The fingerprint of the given named fields.
     *
     * @throws IllegalArgumentException if a value cannot be represented in canonical JSON (NaN,
     *     infinity, an unpaired surrogate, an integer beyond 2^53), or is neither plain nor convertible
     */
    public static Fingerprint ofFields(Map<String, ?> namedFields) {
        Objects.requireNonNull(namedFields, "namedFields");
        return new Fingerprint(CanonicalJson.sha256Hex(plain(namedFields)));
    }

    /**
     * The fingerprint of the named fields of {@code request}: a map, a record, or (with Jackson on the
     * class path) a bean. A field that is there and {@code null} is fingerprinted as {@code null}, and so
     * is a name a map lacks (a body whose optional field is absent); a name a record or a bean does not
     * have is refused: fingerprinting it as {@code null} would let the same key with another request
     * replay the first one's result ({@code "order_id"} named on a record whose component is
     * {@code orderId}).
     *
     * @throws IllegalArgumentException if no field is named, the request is not an object, or a record
     *     or bean lacks a named field
     */
    public static Fingerprint ofNamed(Object request, String... fieldNames) {
        Objects.requireNonNull(request, "request");
        if (fieldNames.length == 0) {
            throw new IllegalArgumentException("name at least one field to fingerprint");
        }
        Object whole = request instanceof Map<?, ?> || request.getClass().isRecord() ? request : plain(request);
        if (!(whole instanceof Map<?, ?>) && !whole.getClass().isRecord()) {
            throw new IllegalArgumentException("request must be an object to pick named fields from, got "
                    + request.getClass().getName());
        }
        // A map is a body whose absent fields count as null; a record or a bean has the fields its type has.
        boolean typed = !(request instanceof Map<?, ?>);
        Map<String, Object> picked = new LinkedHashMap<>();
        for (String name : fieldNames) {
            if (typed && !has(whole, name)) {
                throw new IllegalArgumentException("a fingerprint names '" + name + "', which "
                        + request.getClass().getName() + " does not have; its fields are " + names(whole)
                        + " (a field that is there and null is fine)");
            }
            picked.put(name, field(whole, name));
        }
        return ofFields(picked);
    }

    private static boolean has(Object whole, String name) {
        if (whole instanceof Map<?, ?> map) {
            return map.containsKey(name);
        }
        for (RecordComponent component : whole.getClass().getRecordComponents()) {
            if (component.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static String names(Object whole) {
        if (whole instanceof Map<?, ?> map) {
            return String.join(", ", map.keySet().stream().map(String::valueOf).toList());
        }
        return String.join(", ", java.util.Arrays.stream(whole.getClass().getRecordComponents())
                .map(RecordComponent::getName).toList());
    }

    /**
     * The fingerprint of an already-built JSON tree, a Jackson {@code JsonNode}. Needs Jackson.
     *
     * @param json a {@code com.fasterxml.jackson.databind.JsonNode}
     */
    public static Fingerprint ofJson(Object json) {
        Objects.requireNonNull(json, "json");
        requireJackson(json);
        return new Fingerprint(CanonicalJson.sha256Hex(JacksonSupport.toPlain(json)));
    }

    /**
     * A fingerprint computed elsewhere, as 64 lower-case hex characters.
     *
     * @throws IllegalArgumentException if it is not 64 lower-case hex characters
     */
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

    /** Plain values as they are; records member by member; anything else through Jackson. */
    private static Object plain(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> members = new LinkedHashMap<>();
            map.forEach((name, member) -> members.put(name, plain(member)));
            return members;
        }
        if (value instanceof Collection<?> items) {
            return items.stream().map(Fingerprint::plain).toList();
        }
        if (value instanceof Object[] items) {
            return java.util.Arrays.stream(items).map(Fingerprint::plain).toList();
        }
        if (CanonicalJson.isPlain(value)) {
            return value;
        }
        if (value.getClass().isRecord()) {
            Map<String, Object> members = new LinkedHashMap<>();
            for (RecordComponent component : value.getClass().getRecordComponents()) {
                members.put(component.getName(), plain(field(value, component.getName())));
            }
            return members;
        }
        requireJackson(value);
        return JacksonSupport.toPlain(value);
    }

    private static Object field(Object whole, String name) {
        if (whole instanceof Map<?, ?> map) {
            return map.get(name);
        }
        for (RecordComponent component : whole.getClass().getRecordComponents()) {
            if (component.getName().equals(name)) {
                try {
                    component.getAccessor().setAccessible(true);
                    return component.getAccessor().invoke(whole);
                } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
                    throw new IllegalArgumentException("cannot read " + name + " of " + whole.getClass().getName(), e);
                }
            }
        }
        return null;
    }

    private static void requireJackson(Object value) {
        if (!OptionalDependencies.jackson()) {
            throw new IllegalArgumentException("fingerprinting a " + value.getClass().getName() + " needs "
                    + "jackson-databind on the class path; pass maps, lists, strings, numbers, booleans and records");
        }
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
