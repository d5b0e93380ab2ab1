package dev.idemlab.lab.peers;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.peers.PeerFactory;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.Peers;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every library {@code lab peers} runs, by name: this project's coordinator under WAIT and RAISE and
 * the post's result cache first, then the peers module's libraries. Stateless and thread-safe.
 */
public final class LabPeers {

    /** The project's coordinator under WAIT. */
    public static final String WAIT = "idempotency-lab-wait";
    /** The project's coordinator under RAISE. */
    public static final String RAISE = "idempotency-lab-raise";
    /** The lab's result cache: the post's broken baseline. */
    public static final String RUN = "result-cache-run";

    /** The rows that must be correct in every experiment for {@code lab peers} to exit 0. */
    public static final List<String> GATED = List.of(WAIT, RAISE);

    private static final String STORE = "; RedisIdempotencyStore (one Lua script per operation, a key prefix "
            + "per run), the library's defaults: 30 s lease, 24 h ttl, fail open";

    private LabPeers() { }

    /** Every library, in table order, with {@code coordinators} building this project's coordinator. */
    public static List<PeerFactory> all(CoordinatorFactory coordinators) {
        List<PeerFactory> all = new ArrayList<>(project(coordinators));
        all.addAll(Peers.all());
        return List.copyOf(all);
    }

    /** The names of {@link #all}, in order. */
    public static List<String> names() {
        return all(CoordinatorFactory.LIBRARY).stream().map(PeerFactory::name).toList();
    }

    /** This project's three rows: WAIT, RAISE, and the result cache. */
    static List<PeerFactory> project(CoordinatorFactory coordinators) {
        Objects.requireNonNull(coordinators, "coordinators");
        return List.of(
                new CoordinatorPeerFactory(WAIT, LabPolicy.WAIT, "IdempotencyCoordinator, policy WAIT: reserves the key "
                        + "with a lease before the charge; an identical request waits for it and replays" + STORE, coordinators),
                new CoordinatorPeerFactory(RAISE, LabPolicy.RAISE, "IdempotencyCoordinator, policy RAISE: reserves the "
                        + "key with a lease before the charge; an identical request gets IdempotencyInProgressException "
                        + "(409)" + STORE, coordinators),
                new CoordinatorPeerFactory(RUN, LabPolicy.RUN, "the lab's ResultCacheCoordinator, the post's broken "
                        + "baseline: looks the key up, charges, stores unless a record is there (first writer wins)"
                        + STORE, coordinators));
    }

    private record CoordinatorPeerFactory(String name, LabPolicy policy, String wiring, CoordinatorFactory coordinators)
            implements PeerFactory {

        @Override
        public StoreKind storeKind() {
            return StoreKind.REDIS;
        }

        @Override
        public PeerLibrary open(FakePaymentProvider provider, String redisUri) {
            return LabCoordinatorPeer.open(name, wiring, policy, coordinators, provider, redisUri);
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
