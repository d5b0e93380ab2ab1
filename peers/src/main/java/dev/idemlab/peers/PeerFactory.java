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
     * @param redisUri {@code redis://host:port}; ignored by peers that keep their records in memory
     * @return a started peer; the caller closes it
     * @throws RuntimeException when the library cannot start (for instance its store is unreachable)
     */
    PeerLibrary open(FakePaymentProvider provider, String redisUri);
}
