package dev.idemlab.lab.cli;

import picocli.CommandLine.Option;

/** {@code --transport}: the coordinator called in process, or the demo payment API over real HTTP. */
final class TransportOption {

    static final String IN_PROCESS = "in-process";
    static final String HTTP = "http";

    @Option(names = "--transport", paramLabel = "TRANSPORT", defaultValue = IN_PROCESS,
            description = "in-process (callers call the coordinator) or http (callers are HTTP clients of a demo "
                    + "payment API behind the Idempotency-Key filter, on 127.0.0.1). Default: ${DEFAULT-VALUE}.")
    String transport;

    /**
     * Whether the run goes over HTTP.
     *
     * @throws UsageException for a transport the lab does not know
     */
    boolean http() {
        if (!IN_PROCESS.equals(transport) && !HTTP.equals(transport)) {
            throw new UsageException("--transport must be in-process or http, got '" + transport + "'");
        }
        return HTTP.equals(transport);
    }
}
