package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CallThrough;
import picocli.CommandLine.Option;

/**
 * {@code --call-through}: the post's four scenarios charge by calling the coordinator, or through an
 * {@code @Idempotent} interface wrapped by {@code Idempotency.proxy} over the same coordinator.
 */
final class CallThroughOption {

    @Option(names = "--call-through", paramLabel = "HOW", defaultValue = "coordinator",
            description = "How the lab's callers charge: coordinator (coordinator.call, built by hand) or proxy (a "
                    + "method annotated @Idempotent on an interface, wrapped by Idempotency.proxy over the same "
                    + "coordinator, as a service without a framework would). proxy goes with --policy wait or raise: "
                    + "the result cache (run) is the lab's and has no proxy. Default: ${DEFAULT-VALUE}.")
    String callThrough;

    /** @throws UsageException for anything but coordinator or proxy */
    CallThrough choice() {
        return switch (callThrough) {
            case "coordinator" -> CallThrough.COORDINATOR;
            case "proxy" -> CallThrough.PROXY;
            default -> throw new UsageException("--call-through must be coordinator or proxy, got '" + callThrough + "'");
        };
    }
}
