package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.ScopeScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario scope}. */
@Command(name = "scope", mixinStandardHelpOptions = true,
        description = "One key under two operations (checkout.pay, then payment.charge) is two records and two "
                + "charges; under one operation, one record and a replay.")
final class ScopeCommand extends FailureScenarioCommand {

    @Option(names = "--operations", paramLabel = "one|two", description = "Default: both, two first.")
    String operations;

    @Override
    List<Scenario> variants() {
        List<Boolean> one = operations == null ? List.of(false, true) : switch (operations) {
            case "one" -> List.of(true);
            case "two" -> List.of(false);
            default -> throw new UsageException("--operations must be one or two, got '" + operations + "'");
        };
        return one.stream().<Scenario>map(ScopeScenario::new).toList();
    }
}
