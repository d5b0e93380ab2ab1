package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.InFlightPolicy;

import java.util.List;

/** {@code --policy}: one in-flight policy, or all three. */
enum PolicyChoice {
    RUN, WAIT, RAISE, ALL;

    List<InFlightPolicy> policies() {
        return this == ALL ? List.of(InFlightPolicy.values()) : List.of(InFlightPolicy.valueOf(name()));
    }
}
