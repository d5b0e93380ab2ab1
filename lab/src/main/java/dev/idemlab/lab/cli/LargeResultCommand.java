package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.LargeResultScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario large-result}. */
@Command(name = "large-result", mixinStandardHelpOptions = true,
        description = "A result over the size limit (set to 32 bytes, so one charge is over it): stored whole, its "
                + "replay fails clearly; stored by reference (the charge id), the replay fetches the whole charge from "
                + "the provider. One charge either way.")
final class LargeResultCommand extends FailureScenarioCommand {

    @Option(names = "--by-reference", paramLabel = "on|off",
            description = "Store the result by reference (the charge id, fetched again on replay) or whole. "
                    + "Default: both, off first.")
    String byReference;

    @Override
    List<Scenario> variants() {
        return Toggle.variants("--by-reference", byReference).stream()
                .<Scenario>map(LargeResultScenario::new).toList();
    }
}
