package dev.idemlab.peers;

import dev.idemlab.provider.FakePaymentProvider;

/**
 * Opens a fresh {@link PeerLibrary} in front of a provider. Every experiment opens its own, so each
 * starts with a fresh provider (an empty ledger) and its own keys.
 */
public interface PeerFactory {

    /** The name of the peers this factory opens. */
    String name();

    /** Where the peers it opens keep their records. */
    StoreKind storeKind();

    /**
     * Opens a peer.
     *
     * @param provider the provider whose {@code charge} the library guards
     * @param storeUri where the peer keeps its records: {@code redis://host:port} for a {@link StoreKind#REDIS}
     *                 peer, {@code jdbc:postgresql://host:port/db?user=...&password=...} for a
     *                 {@link StoreKind#POSTGRES} one ({@link Peers#postgresUri}); ignored by in-memory peers
     * @return a started peer; the caller closes it
     * @throws RuntimeException when the library cannot start (for instance its store is unreachable)
     */
    PeerLibrary open(FakePaymentProvider provider, String storeUri);
}
