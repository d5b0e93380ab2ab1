package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.Scenarios;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scenario lists a user reads agree with the scenarios there are: the {@code scenario}
 * subcommands, what {@code scenario all} runs and says it runs, the usage error of a bare
 * {@code lab scenario}, and the README's experiments table.
 */
class ScenarioListsAgreeTest {

    private static final Set<String> RUN_ALONE = Set.of("failover");

    private static List<String> subcommands() {
        return LabCommand.commandLine().getSubcommands().get("scenario").getSubcommands().keySet().stream()
                .filter(name -> !name.equals("help") && !name.equals("all")).toList();
    }

    @Test
    void scenarioAllRunsEverySubcommandButThoseThatRunAlone() {
        Set<String> expected = new TreeSet<>(subcommands());
        expected.removeAll(RUN_ALONE);
        assertThat(new TreeSet<>(Scenarios.names())).isEqualTo(expected);
    }

    @Test
    void scenarioAllsHelpNamesEveryScenarioItRuns() {
        String description = String.join(" ", LabCommand.commandLine().getSubcommands().get("scenario")
                .getSubcommands().get("all").getCommandSpec().usageMessage().description());
        for (String name : Scenarios.names()) {
            assertThat(description).as("scenario all --help").contains(name);
        }
    }

    @Test
    void aBareScenarioCommandListsThemAll() {
        LabRun run = LabRun.of("scenario");
        assertThat(run.exitCode()).isEqualTo(2);
        for (String name : subcommands()) {
            assertThat(run.err()).contains(name);
        }
    }

    @Test
    void theReadmesExperimentsTableHasEveryScenario() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        String table = readme.substring(readme.indexOf("## The experiments"), readme.indexOf("How to read a table"));
        for (String name : subcommands()) {
            assertThat(table).as("README, The experiments").contains("`" + name + "`");
        }
    }
}
