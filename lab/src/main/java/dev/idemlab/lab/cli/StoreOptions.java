package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackends;
import picocli.CommandLine.Option;

/** Which store, and where its server comes from. Shared by every command that runs scenarios. */
final class StoreOptions {

    @Option(names = "--store", paramLabel = "STORE", defaultValue = StoreBackends.DEFAULT,
            description = "Store to keep idempotency records in: ${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}.",
            completionCandidates = StoreBackends.Names.class)
    String store;

    @Option(names = "--redis-url", paramLabel = "URL",
            description = "Use this Redis (redis://host:port) instead of starting one. Also env IDEMLAB_REDIS_URL.")
    String redisUrl;

    @Option(names = "--redis-from", paramLabel = "ORIGIN",
            description = "Take Redis only from: url, system (redis-server on PATH), bundled, container.")
    Origin redisFrom;

    @Option(names = "--pg-url", paramLabel = "URL",
            description = "Use this PostgreSQL (jdbc:postgresql://host:port/db?user=..&password=..). Also env IDEMLAB_PG_URL.")
    String pgUrl;

    @Option(names = "--pg-from", paramLabel = "ORIGIN",
            description = "Take PostgreSQL only from: url, bundled (embedded), container.")
    Origin pgFrom;

    ProvisioningOptions provisioning() {
        return new ProvisioningOptions(redisUrl, redisFrom, pgUrl, pgFrom);
    }

    /** @throws UsageException for a store the lab does not know */
    String validatedStore() {
        if (!StoreBackends.NAMES.contains(store)) {
            throw new UsageException("--store must be one of " + String.join(", ", StoreBackends.NAMES) + ", got '" + store + "'");
        }
        return store;
    }
}
