package dev.idemlab.bench;

import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.raw.RawStores;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Prints the stores this build can benchmark, as {@code -p store=} wants them ({@code MEMORY,REDIS}):
 * those with a lab backend and a raw baseline client. {@code scripts/bench.sh} asks it which stores to run:
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.idemlab.bench.AvailableStores
 * }</pre>
 */
public final class AvailableStores {

    private AvailableStores() { }

    public static void main(String[] args) {
        System.out.println(Arrays.stream(StoreKind.values()).filter(AvailableStores::available)
                .map(StoreKind::name).collect(Collectors.joining(",")));
    }

    /** Whether this build's lab knows how to provision {@code kind}, and has a raw client for it. */
    static boolean available(StoreKind kind) {
        return StoreBackends.NAMES.contains(kind.backendName()) && RawStores.NAMES.contains(kind.backendName());
    }
}
