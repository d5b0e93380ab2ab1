package dev.idemlab.peers;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.idempotency.testsupport.LocalRedis;

/**
 * A store's server an experiment may stop: the store-down experiment starts a peer against it, then
 * stops it, then charges. A Redis for the peers that keep their records there, a PostgreSQL for those
 * that keep them in a database. Implementations stop only a server they started.
 */
public interface ServerOutage {

    /** Where the server listens, as the peer's factory takes it: {@code redis://host:port} or a JDBC URL. */
    String uri();

    /** Stops the server; the port then refuses connections. Idempotent. */
    void stop();

    /** The outage of {@code server}: stopping it closes the server. */
    static ServerOutage of(LocalRedis server) {
        return of(server.uri(), server);
    }

    /** The outage of {@code server}: stopping it closes the server. */
    static ServerOutage of(LocalPostgres server) {
        return of(Peers.postgresUri(server.jdbcUrl(), server.user(), server.password()), server);
    }

    private static ServerOutage of(String uri, AutoCloseable server) {
        return new ServerOutage() {
            @Override
            public String uri() {
                return uri;
            }

            @Override
            public void stop() {
                try {
                    server.close();
                } catch (Exception e) {
                    throw new IllegalStateException("cannot stop the server at " + uri + ": " + e.getMessage(), e);
                }
            }
        };
    }
}
