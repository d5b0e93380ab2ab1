package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.LeaseOverrunScenario;
import dev.idemlab.lab.scenario.PausedHolderScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** {@code lab scenario lease-overrun}. */
@Command(name = "lease-overrun", mixinStandardHelpOptions = true,
        description = "The holder's charge takes 2.5 leases and a retry arrives after the lease. --heartbeat off "
                + "(renewals dropped): the marker expires under the holder and the provider charges twice. "
                + "--heartbeat on: the lease is renewed, one charge. --paused-holder: the holder runs in a child JVM "
                + "stopped with SIGSTOP past its lease, then SIGCONT; the provider checks fences, so the stale "
                + "charge is refused (--fence off: it is not, two charges). Without options: all variants.")
final class LeaseOverrunCommand extends FailureScenarioCommand {

    @Option(names = "--heartbeat", paramLabel = "on|off", description = "Run the in-process holder with renewals on or off.")
    String heartbeat;

    @Option(names = "--paused-holder", description = "Run the paused child-JVM holder (store redis or postgres).")
    boolean pausedHolder;

    @Option(names = "--fence", paramLabel = "on|off",
            description = "With --paused-holder: the provider checks fences or not. Default: on.")
    String fence;

    @Override
    void checkStore(String store) {
        if (pausedHolder && store.equals("memory")) {
            throw new UsageException("--paused-holder runs the holder in a child JVM, which cannot reach the memory "
                    + "store of this process: use --store redis or postgres");
        }
    }

    @Override
    List<Scenario> variants() {
        List<Scenario> variants = new ArrayList<>();
        boolean all = heartbeat == null && !pausedHolder;
        if (heartbeat != null || all) {
            Toggle.variants("--heartbeat", heartbeat).forEach(on -> variants.add(new LeaseOverrunScenario(on)));
        }
        if (pausedHolder || all) {
            List<Boolean> fences = fence == null ? List.of(true) : Toggle.variants("--fence", fence);
            fences.forEach(on -> variants.add(new PausedHolderScenario(on)));
        } else if (fence != null) {
            throw new UsageException("--fence applies to --paused-holder only");
        }
        return variants;
    }
}
