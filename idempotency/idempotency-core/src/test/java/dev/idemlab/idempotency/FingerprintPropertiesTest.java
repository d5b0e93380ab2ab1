package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.StoreKeys;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of fingerprints and store keys, over generated requests: equal requests (in any member
 * order, amounts written as 5 or 5.0 or 5.00) have one fingerprint, different amounts never share
 * one, and distinct (prefix, operation, key) never share a store key.
 */
class FingerprintPropertiesTest {

    @Property
    void memberOrderAndNumberSpellingDoNotChangeTheFingerprint(@ForAll("orderIds") String orderId,
                                                               @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long amount,
                                                               @ForAll("currencies") String currency) {
        Map<String, Object> first = new LinkedHashMap<>();
        first.put("order_id", orderId);
        first.put("amount", amount);
        first.put("currency", currency);
        List<String> names = new ArrayList<>(first.keySet());
        Collections.reverse(names);
        Map<String, Object> reordered = new LinkedHashMap<>();
        for (String name : names) {
            reordered.put(name, name.equals("amount") ? new BigDecimal(amount).setScale(2) : first.get(name));
        }
        assertThat(Fingerprint.ofFields(reordered)).isEqualTo(Fingerprint.ofFields(first));
    }

    @Property
    void differentAmountsNeverShareAFingerprint(@ForAll("orderIds") String orderId,
                                                @ForAll @LongRange(min = -9_007_199_254_740_992L, max = 9_007_199_254_740_992L) long amount,
                                                @ForAll @LongRange(min = -9_007_199_254_740_992L, max = 9_007_199_254_740_992L) long other) {
        Assume.that(amount != other);
        assertThat(Fingerprint.ofFields(Map.of("order_id", orderId, "amount", amount)))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("order_id", orderId, "amount", other)));
    }

    @Property
    void distinctPrefixOperationAndKeyNeverShareAStoreKey(@ForAll("prefixes") String prefix1,
                                                         @ForAll("operations") String operation1,
                                                         @ForAll @StringLength(min = 1, max = 20) String key1,
                                                         @ForAll("prefixes") String prefix2,
                                                         @ForAll("operations") String operation2,
                                                         @ForAll @StringLength(min = 1, max = 20) String key2) {
        Assume.that(!(prefix1.equals(prefix2) && operation1.equals(operation2) && key1.equals(key2)));
        assertThat(StoreKeys.of(prefix1, operation1 + ':' + key1))
                .isNotEqualTo(StoreKeys.of(prefix2, operation2 + ':' + key2));
    }

    @Property
    void overlappingPrefixesAreDifferentKeys(@ForAll("operations") String operation, @ForAll @StringLength(min = 1, max = 20) String key) {
        // "app:" + "payment.x:k" and "app:payment." + "x:k" once named one record.
        assertThat(StoreKeys.of("app:", "payment." + operation + ':' + key))
                .isNotEqualTo(StoreKeys.of("app:payment.", operation + ':' + key));
    }

    @Provide
    Arbitrary<String> orderIds() {
        return Arbitraries.strings().withCharRange('a', 'z').numeric().ofMinLength(1).ofMaxLength(12);
    }

    @Provide
    Arbitrary<String> currencies() {
        return Arbitraries.of("EUR", "USD", "JPY", "CHF");
    }

    @Provide
    Arbitrary<String> prefixes() {
        // Short and from few characters, so that near-collisions ("a:" + "b" vs "a" + ":b") come up often.
        return Arbitraries.strings().withChars('a', ':', '.', 'b').ofMaxLength(4);
    }

    @Provide
    Arbitrary<String> operations() {
        return Arbitraries.strings().withChars('a', '.', 'b', '_').ofMinLength(1).ofMaxLength(4);
    }
}
