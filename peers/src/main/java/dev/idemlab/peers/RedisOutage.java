package dev.idemlab.peers;

import dev.idemlab.idempotency.testsupport.LocalRedis;

/**
 * A Redis server an experiment may stop: the store-down experiment starts a peer against it, then
 * stops it, then charges. Implementations stop only a server they started.
 */
public interface RedisOutage {

    /** Where the server listens: {@code redis://host:port}. */
    String uri();

    /** Stops the server; the port then refuses connections. Idempotent. */
    void stop();

    /** The outage of {@code server}: stopping it closes the server. */
    static RedisOutage of(LocalRedis server) {
        return new RedisOutage() {
            @Override
            public String uri() {
                return server.uri();
            }

            @Override
            public void stop() {
                server.close();
            }
        };
    }
}
