package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;

import java.util.List;

/** {@code --policy}: one in-flight policy, or all three. */
enum PolicyChoice {
    RUN, WAIT, RAISE, ALL;

    List<LabPolicy> policies() {
        return this == ALL ? List.of(LabPolicy.values()) : List.of(LabPolicy.valueOf(name()));
    }
}
