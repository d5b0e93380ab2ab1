package dev.idemlab.bench.raw;

import dev.idemlab.bench.StoreKind;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;

/** Opens the raw baseline client for a store, against the server its lab backend provisioned. */
public final class RawStores {

    private RawStores() { }

    /**
     * A raw client on the same server as {@code backend}'s stores.
     *
     * @throws UnsupportedOperationException if this build has no raw client for {@code kind}
     */
    public static RawStore open(StoreKind kind, StoreBackend backend) {
        return switch (kind) {
            case MEMORY -> new MemoryRawStore();
            case REDIS, POSTGRES -> throw new UnsupportedOperationException(
                    "no raw " + kind.backendName() + " baseline in this build: the store has not landed yet");
        };
    }

    /** Whether both the lab backend and the raw client for {@code kind} exist in this build. */
    public static boolean available(StoreKind kind) {
        return StoreBackends.NAMES.contains(kind.backendName()) && kind == StoreKind.MEMORY;
    }
}
