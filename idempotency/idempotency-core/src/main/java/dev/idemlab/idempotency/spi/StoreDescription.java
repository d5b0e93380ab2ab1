package dev.idemlab.idempotency.spi;

import java.util.Objects;

/**
 * What a store says about itself, for logs, metrics and every lab output.
 *
 * @param name the store's short name: {@code memory}, {@code redis}, {@code postgres}
 * @param serverVersion the server's version as it reports it, or {@code in-process}
 * @param address where it lives, e.g. {@code 127.0.0.1:6379}, or {@code in-process}
 */
public record StoreDescription(String name, String serverVersion, String address) {

    public StoreDescription {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(serverVersion, "serverVersion");
        Objects.requireNonNull(address, "address");
    }
}
