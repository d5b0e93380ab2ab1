package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;

import java.util.Optional;

/**
 * One kind of store and the server behind it, provisioned for a lab run. Closing the backend stops
 * every server it started (and only those).
 */
public interface StoreBackend extends AutoCloseable {

    /** The store's name: memory, redis, postgres. */
    String name();

    /** Which server, which version, from where. */
    ServerInfo server();

    /**
     * A new store client whose records are isolated from every other client's (a fresh key prefix),
     * so runs never see each other's keys. The caller closes it.
     */
    IdempotencyStore openStore();

    /**
     * A store client whose server has gone away, for the store-down experiment.
     *
     * @throws UnsupportedOperationException if this kind of store cannot go down (memory)
     */
    StoreOutage openOutage();

    /**
     * Removes what this backend's stores wrote to a server the user gave (a lab run must not leave its
     * records in someone's Redis), and says what it did; empty when there is nothing to say (a private
     * server is stopped with everything in it).
     */
    default Optional<String> cleanUp() {
        return Optional.empty();
    }

    @Override
    void close();
}
