package dev.idemlab.lab.infra;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.time.Duration;

/**
 * Starts a private PostgreSQL from the binaries bundled in the lab's own dependencies: a fresh data
 * directory, 127.0.0.1 only, an ephemeral port. PostgreSQL refuses to run as root; when the JVM does,
 * the launcher runs the binaries in a user namespace of their own, which needs unprivileged user
 * namespaces enabled on the machine (the failure message says so when they are not).
 *
 * <p>Stateless and thread-safe; each call starts its own server.
 */
final class BundledPostgres {

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private BundledPostgres() { }

    /**
     * @throws ProvisioningException if the server cannot be started
     */
    static PostgresServer start() {
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setPGStartupWait(STARTUP_WAIT);
            EmbeddedPostgres server = builder.start();
            String address = "127.0.0.1:" + server.getPort();
            String url = "jdbc:postgresql://" + address + "/postgres";
            return new PostgresServer(url, "postgres", null, Origin.BUNDLED, address, server);
        } catch (IOException | RuntimeException e) {
            throw new ProvisioningException("could not start the bundled PostgreSQL binary: " + e.getMessage(), e);
        }
    }
}
