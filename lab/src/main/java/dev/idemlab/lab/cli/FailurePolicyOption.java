package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code --policy} for the failure lab: the library's own policies, wait or raise. */
final class FailurePolicyOption {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "wait",
            description = "In-flight policy of the library's coordinator: wait, raise or all (both). Default: ${DEFAULT-VALUE}.")
    String policy;

    /** @throws UsageException for run or anything unknown */
    List<LabPolicy> policies() {
        return switch (policy) {
            case "wait" -> List.of(LabPolicy.WAIT);
            case "raise" -> List.of(LabPolicy.RAISE);
            case "all" -> List.of(LabPolicy.WAIT, LabPolicy.RAISE);
            default -> throw new UsageException("--policy must be wait, raise or all (the failure lab tests the "
                    + "library's coordinator, not the result cache), got '" + policy + "'");
        };
    }
}
