package dev.idemlab.lab.cli;

import picocli.CommandLine.Option;

/** The in-flight race's own knobs: when the retries arrive and how many callers there are. */
final class RaceOptions {

    static final int MAX_CALLERS = 1000;

    @Option(names = "--retry-at-ms", paramLabel = "MS", defaultValue = "50",
            description = "When callers B..N send the identical request, in ms after A; 0 or more. Default: ${DEFAULT-VALUE}.")
    long retryAtMs;

    @Option(names = "--callers", paramLabel = "N", defaultValue = "2",
            description = "Callers sending the identical request: A, then B..N at the retry time; 2 to " + MAX_CALLERS
                    + ". Default: ${DEFAULT-VALUE}.")
    int callers;

    void validate() {
        if (retryAtMs < 0) {
            throw new UsageException("--retry-at-ms must be 0 or more, got " + retryAtMs);
        }
        if (callers < 2 || callers > MAX_CALLERS) {
            throw new UsageException("--callers must be between 2 and " + MAX_CALLERS + ", got " + callers);
        }
    }
}
