package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.GhostReservationScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario ghost-reservation}. */
@Command(name = "ghost-reservation", mixinStandardHelpOptions = true,
        description = "The lab's private Redis pauses (CLIENT PAUSE 1500 ms) past the client's timeout during reserve; "
                + "the caller fails open and charges, then the queued reserve lands: a marker nobody holds. Settled "
                + "by the coordinator in the background, the retry replays (one charge); left alone, the retry waits "
                + "out its lease and charges again. Redis only: on PostgreSQL the server cancels the stalled reserve.")
final class GhostReservationCommand extends FailureScenarioCommand {

    @Option(names = "--settle", paramLabel = "on|off",
            description = "Let the coordinator settle a reservation that may have landed late (on), or drop those "
                    + "background writes (off). Default: both, off first.")
    String settle;

    @Override
    void checkStore(String store) {
        if (!store.equals("redis")) {
            throw new UsageException("ghost-reservation pauses the lab's own private single Redis: --store must be "
                    + "redis, got '" + store + "'" + (store.equals("postgres")
                    ? " (on PostgreSQL the statement and lock timeouts cancel a stalled reserve on the server)" : ""));
        }
    }

    @Override
    List<Scenario> variants() {
        return Toggle.variants("--settle", settle).stream().<Scenario>map(GhostReservationScenario::new).toList();
    }
}
