package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.ProviderChoice;
import picocli.CommandLine.Option;

/** {@code --provider}: the counting provider in this process, or behind its HTTP service. */
final class ProviderOption {

    @Option(names = "--provider", paramLabel = "WHERE", defaultValue = "in-process",
            description = "in-process (callers call the fake provider) or http (the same provider behind its HTTP "
                    + "service on 127.0.0.1; callers use POST /charges and the ledger is read with GET /ledger). "
                    + "Default: ${DEFAULT-VALUE}.")
    String provider;

    /** @throws UsageException for anything but in-process or http */
    ProviderChoice choice() {
        return switch (provider) {
            case "in-process" -> ProviderChoice.IN_PROCESS;
            case "http" -> ProviderChoice.HTTP;
            default -> throw new UsageException("--provider must be in-process or http, got '" + provider + "'");
        };
    }
}
