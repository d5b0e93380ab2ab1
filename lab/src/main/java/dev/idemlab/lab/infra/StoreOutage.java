package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;

/**
 * A store whose server has really gone away: a private server that was stopped, or, when the user
 * gave a URL, an address where nothing listens (the user's server is never stopped).
 * Closing it releases the client.
 */
public interface StoreOutage extends AutoCloseable {

    /** A store client that was connected and whose server is now unreachable. */
    IdempotencyStore store();

    /** How the outage was made, for the output: "stopped the private redis-server on 127.0.0.1:40123". */
    String how();

    @Override
    void close();
}
