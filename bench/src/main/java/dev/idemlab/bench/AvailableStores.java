package dev.idemlab.bench;

import dev.idemlab.bench.raw.RawStores;

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
        System.out.println(Arrays.stream(StoreKind.values()).filter(RawStores::available)
                .map(StoreKind::name).collect(Collectors.joining(",")));
    }
}
