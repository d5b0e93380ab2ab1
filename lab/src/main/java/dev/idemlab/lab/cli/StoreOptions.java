package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** Which store, and where its server comes from. Shared by every command that runs on one store. */
final class StoreOptions {

    @Option(names = "--store", paramLabel = "STORE", defaultValue = StoreBackends.DEFAULT,
            description = "Store to keep idempotency records in: ${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}.",
            completionCandidates = StoreBackends.Names.class)
    String store;

    @Mixin
    ServerOptions servers;

    /** @throws UsageException for a store the lab does not know (names are case-insensitive) */
    String validatedStore() {
        return storeName("--store", store);
    }

    /** Where {@code stores}' servers come from, every rule checked. */
    ProvisioningOptions provisioning(List<String> stores) {
        return servers.provisioning(stores);
    }

    /** Removes what the run left on a server the user gave, and says so on standard error. */
    static void cleanUp(StoreBackend backend, PrintWriter err) {
        backend.cleanUp().ifPresent(line -> {
            err.println("lab: " + line);
            err.flush();
        });
    }

    /** {@code name} as the lab knows it, lower case. @throws UsageException naming {@code option} */
    static String storeName(String option, String name) {
        String lower = name.trim().toLowerCase(Locale.ROOT);
        if (!StoreBackends.NAMES.contains(lower)) {
            throw new UsageException(option + (option.equals("--store") ? " must be one of " : " must name stores among ")
                    + String.join(", ", StoreBackends.NAMES) + ", got '" + name + "'");
        }
        return lower;
    }
}
