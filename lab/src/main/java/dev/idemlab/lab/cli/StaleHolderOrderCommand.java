package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.OrderScenario;
import picocli.CommandLine.Command;

/** {@code lab scenario stale-holder-order}. */
@Command(name = "stale-holder-order", mixinStandardHelpOptions = true,
        description = "Places an order with its holder in a child JVM, stops the holder with SIGSTOP at a step "
                + "boundary for two leases while the client's retry takes the key over and places the order, then lets "
                + "the holder go on. With each effect committed as it happens the stale holder's order stays: two "
                + "orders. With the record committed in the order's transaction (transactional) the stale holder's "
                + "completion finds the key another's and its whole transaction rolls back: one order. PostgreSQL only.")
final class StaleHolderOrderCommand extends OrderScenarioCommand {

    @Override
    OrderScenario.Fault fault() {
        return OrderScenario.Fault.PAUSE;
    }
}
