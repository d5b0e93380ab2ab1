package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.ServerUrls;
import picocli.CommandLine.Option;

/**
 * {@code --pg-url} and {@code --pg-from} for the commands whose only server of their own choosing is
 * PostgreSQL (the DBOS peers): one place for the two options, their help and the URL's rule, so that
 * the commands cannot drift apart on what they accept. {@link ServerOptions} carries the same two
 * beside Redis for the commands that take either store.
 */
final class PostgresOptions {

    @Option(names = "--pg-url", paramLabel = "URL",
            description = "Use this PostgreSQL (" + ServerUrls.PG_FORM + ") instead of starting one. Also env "
                    + ProvisioningOptions.PG_URL_ENV + ". The run works in schemas of its own there and drops them; "
                    + "a store-down experiment stops only a private server the lab starts, never this one.")
    String pgUrl;

    @Option(names = "--pg-from", paramLabel = "ORIGIN", converter = ServerOptions.PgFrom.class,
            description = "Take PostgreSQL only from: url, bundled (embedded), container.")
    Origin pgFrom;

    /**
     * The URL given as an option, checked against the form PostgreSQL URLs take here.
     *
     * @throws UsageException naming the option, the masked URL, what is wrong with it and the form expected
     */
    void check() {
        if (pgUrl != null) {
            ServerUrls.pgProblem(pgUrl).ifPresent(problem -> {
                throw new UsageException("--pg-url " + ServerUrls.masked(pgUrl) + ": " + problem + " (expected "
                        + ServerUrls.PG_FORM + ")");
            });
        }
    }
}
