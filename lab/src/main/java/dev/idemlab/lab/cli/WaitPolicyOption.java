package dev.idemlab.lab.cli;

import picocli.CommandLine.Option;

/** {@code --policy} for the scenarios the post runs under wait: key-reuse, provider-timeout, store-down. */
final class WaitPolicyOption {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "wait",
            description = "In-flight policy: run, wait, raise or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice choice;
}
