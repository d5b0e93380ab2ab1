package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;

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

    @Override
    void close();
}
