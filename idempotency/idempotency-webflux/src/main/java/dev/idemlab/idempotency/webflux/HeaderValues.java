package dev.idemlab.idempotency.webflux;

import org.springframework.http.HttpHeaders;

import java.util.ArrayList;
import java.util.List;

/**
 * Every value of one header, read in a way whose bytecode links on Spring Framework 6.2 as on 7:
 * {@code HttpHeaders.getOrEmpty} takes an {@code Object} in 6.2 and a {@code String} in 7, so a filter
 * compiled against 7 that calls it fails on 6.2 with a {@code NoSuchMethodError} on its first guarded
 * request, and every such request is answered with a reset connection. {@code forEach} has one
 * signature in both. Header names compare without regard to case, as {@link HttpHeaders} compares them.
 * Stateless.
 */
final class HeaderValues {

    private HeaderValues() { }

    /** The values of {@code name} in {@code headers}, in order; empty when it is absent. */
    static List<String> of(HttpHeaders headers, String name) {
        List<String> values = new ArrayList<>();
        headers.forEach((each, eachValues) -> {
            if (each.equalsIgnoreCase(name) && eachValues != null) {
                values.addAll(eachValues);
            }
        });
        return values;
    }
}
