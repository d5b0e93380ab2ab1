package dev.idemlab.idempotency;

import java.util.Objects;
import java.util.function.Function;

/**
 * A result stored by reference: the completed record keeps only a short reference (a charge id, a
 * document id), and a replay fetches the whole result from where it lives. For results too large to
 * store, or that must be read fresh on every replay, as the post advises: "store a reference and fetch
 * it on replay". The action's effect still happens once; a replay costs one fetch.
 *
 * <p>The reference is stored as a JSON string. Thread-safe if the two functions are.
 *
 * @param <T> the action's result type
 */
public final class ReferenceCodec<T> implements ResultCodec<T> {

    private final Function<? super T, String> reference;
    private final Function<String, ? extends T> fetch;

    private ReferenceCodec(Function<? super T, String> reference, Function<String, ? extends T> fetch) {
        this.reference = Objects.requireNonNull(reference, "reference");
        this.fetch = Objects.requireNonNull(fetch, "fetch");
    }

    /**
     * A codec that stores {@code reference.apply(result)} and replays {@code fetch.apply(reference)}.
     *
     * @param reference the result's reference, e.g. {@code Charge::id}; not {@code null}
     * @param fetch the result for a reference, e.g. {@code id -> provider.findCharge(id).orElseThrow()}; a
     *     fetch that throws makes the replay fail with {@link IdempotentReplayUnavailableException}
     */
    public static <T> ReferenceCodec<T> of(Function<? super T, String> reference, Function<String, ? extends T> fetch) {
        return new ReferenceCodec<>(reference, fetch);
    }

    @Override
    public String encode(T result) {
        String ref = reference.apply(result);
        if (ref == null) {
            throw new IllegalArgumentException("the result has no reference to store");
        }
        return dev.idemlab.idempotency.internal.CanonicalJson.write(ref);
    }

    @Override
    public T decode(String json) {
        if (json.length() < 2 || json.charAt(0) != '"' || json.charAt(json.length() - 1) != '"') {
            throw new IllegalArgumentException("a stored reference is a JSON string, got " + json);
        }
        String ref = unescape(json.substring(1, json.length() - 1));
        T result = fetch.apply(ref);
        if (result == null) {
            throw new IllegalStateException("nothing was found for the stored reference " + ref);
        }
        return result;
    }

    /** The escapes canonical JSON writes: quote, backslash, the short forms and \\u00XX. */
    private static String unescape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char next = text.charAt(++i);
            switch (next) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    out.append((char) Integer.parseInt(text.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> out.append(next);
            }
        }
        return out.toString();
    }
}
