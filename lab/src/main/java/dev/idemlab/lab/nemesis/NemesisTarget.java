package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.infra.StoreBackend;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The store a nemesis run works against, and the faults it can be given: the store client the
 * coordinators share (connected through a TCP proxy where the network is one of the faults), and one
 * injector per {@link FaultKind} it offers. An injection holds its fault for the length asked and
 * always ends it before it returns, also when it is interrupted. Closing the target ends any fault and
 * closes what it opened; the servers belong to the backend, but for those a target starts for itself.
 * Not thread-safe: the nemesis injects one fault at a time.
 */
abstract class NemesisTarget implements AutoCloseable {

    private final ServerInfo server;
    /** How long the coordinator tries a store call before it fails open or closed (the default, which the nemesis runs). */
    static final Duration STORE_PATIENCE = IdempotencyConfig.custom().build().storePatience();

    private volatile Consumer<Duration> repliesLost = length -> { };

    /** @param server the backend's server, which the store works against unless the target says otherwise */
    NemesisTarget(ServerInfo server) {
        this.server = server;
    }

    /** The server the store works against, for the history: the backend's unless the target runs its own. */
    ServerInfo server() {
        return server;
    }

    /** The store client under test. */
    abstract IdempotencyStore store();

    /**
     * The store's records as the watch of landed reserves ({@link LandedReserves}) reads them: the store
     * under test itself, unless the target has a client of its own that its network faults spare.
     */
    IdempotencyStore witness() {
        return store();
    }

    /**
     * Who is told, on the nemesis's thread, when a loss of replies of {@code length} (the whole fault's)
     * has reached the point where a reserve sent at once lands on the server and its caller hears nothing
     * back; told only by the targets that can say when that is.
     */
    void whenRepliesAreLost(Consumer<Duration> listener) {
        this.repliesLost = listener;
    }

    /** Tells the {@linkplain #whenRepliesAreLost listener} that replies of a loss of {@code length} are being lost now. */
    void repliesLost(Duration length) {
        repliesLost.accept(length);
    }

    /** The faults this store can be given, besides those of the caller's side (rejected resumptions). */
    abstract List<FaultKind> kinds();

    /**
     * Injects {@code kind} and holds it for {@code length}, then ends it.
     *
     * @throws Exception when the fault could not be injected; it is ended as far as it began
     */
    abstract void inject(FaultKind kind, Duration length) throws Exception;

    @Override
    public abstract void close();

    /**
     * The target for {@code backend}'s kind of store.
     *
     * @throws IllegalArgumentException for a store the nemesis cannot work against yet
     */
    static NemesisTarget open(StoreBackend backend, Duration lease, long seed) throws java.io.IOException {
        if (backend instanceof MemoryBackend) {
            return new MemoryTarget(backend.server(), lease);
        }
        if (backend instanceof RedisBackend redis) {
            return new RedisTarget(redis);
        }
        if (backend instanceof dev.idemlab.lab.infra.RedisClusterBackend cluster) {
            return new ClusterTarget(cluster, seed);
        }
        if (backend instanceof PostgresBackend postgres) {
            return new PostgresTarget(postgres);
        }
        throw new IllegalArgumentException("the nemesis has no faults for the " + backend.name() + " store yet");
    }

    /** Holds a fault for {@code length}; an interrupt ends the hold early and is kept. */
    static void hold(Duration length) {
        try {
            Thread.sleep(length.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
