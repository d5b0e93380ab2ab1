package dev.idemlab.idempotency.store.postgres;

import org.postgresql.Driver;

import java.util.Properties;

/** Reads {@code host:port} out of a JDBC URL, for {@code describe()}. Stateless and thread-safe. */
final class ServerAddress {

    private ServerAddress() { }

    /** {@code host:port} as the driver parses the URL (first host of a list), or the URL itself. */
    static String of(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            return jdbcUrl;
        }
        String hosts = parsed.getProperty("PGHOST", "localhost");
        String ports = parsed.getProperty("PGPORT", "5432");
        return hosts.split(",")[0] + ":" + ports.split(",")[0];
    }
}
