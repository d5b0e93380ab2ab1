package dev.idemlab.lab.cli;

import picocli.CommandLine.Option;

/** The in-flight race's own knobs: when the retries arrive and how many callers there are. */
final class RaceOptions {

    static final int MAX_CALLERS = 1000;
    static final long MAX_RETRY_AT_MS = 60_000;

    @Option(names = "--retry-at-ms", paramLabel = "MS", defaultValue = "50",
            description = "When callers B..N send the identical request, in ms after A; 0 to " + MAX_RETRY_AT_MS
                    + ". Default: ${DEFAULT-VALUE}.")
    long retryAtMs;

    @Option(names = "--callers", paramLabel = "N", defaultValue = "2",
            description = "Callers sending the identical request: A, then B..N at the retry time; 2 to " + MAX_CALLERS
                    + ". Default: ${DEFAULT-VALUE}.")
    long callers;

    void validate() {
        Bounds.check("--retry-at-ms", retryAtMs, 0, MAX_RETRY_AT_MS);
        Bounds.check("--callers", callers, 2, MAX_CALLERS);
    }
}
