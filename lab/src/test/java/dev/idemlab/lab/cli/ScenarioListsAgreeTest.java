package dev.idemlab.lab.cli;

import dev.idemlab.lab.faults.FaultCatalogue;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.Scenarios;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lists a user reads agree with their one source: the scenarios ({@link Scenarios} and the
 * {@code scenario} subcommands) in what {@code scenario all} runs and says it runs, the usage error of a
 * bare {@code lab scenario} and the experiments table of {@code docs/experiments.md} (moved there from
 * the README in issue 40), rows and run counts; the stores ({@link StoreBackends#NAMES}) and the policies
 * ({@link PolicyChoice}, {@link LabPolicy}) in every command's help, the usage errors and that page's
 * options table.
 */
class ScenarioListsAgreeTest {

    private static final Set<String> RUN_ALONE = Set.of("failover", "redelivery", "redelivery-crash", "share-lock-expiry");

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
        String readme = readme();
        String table = readme.substring(readme.indexOf("## The experiments"), readme.indexOf("How to read a table"));
        for (String name : subcommands()) {
            assertThat(table).as("docs/experiments.md, The experiments").contains("`" + name + "`");
        }
    }

    /** The page with the experiments and options tables, which the README links to. */
    private static String readme() throws IOException {
        return Files.readString(Path.of("..", "docs", "experiments.md"));
    }

    /** The rows of the experiments table, cells split, header and rule left out. */
    private static List<String[]> experimentsRows() throws IOException {
        String readme = readme();
        String section = readme.substring(readme.indexOf("## The experiments"), readme.indexOf("How to read a table"));
        List<String[]> rows = new ArrayList<>();
        for (String line : section.lines().toList()) {
            if (line.startsWith("| `")) {
                rows.add(Arrays.stream(line.split("(?<!\\\\)\\|")).map(String::strip).skip(1).toArray(String[]::new));
            }
        }
        return rows;
    }

    @Test
    void theReadmesExperimentsTableNamesExactlyTheScenarioSubcommands() throws IOException {
        Set<String> named = new TreeSet<>();
        Pattern backticked = Pattern.compile("`([a-z-]+)[^`]*`");
        for (String[] row : experimentsRows()) {
            Matcher m = backticked.matcher(row[0]);
            while (m.find()) {
                named.add(m.group(1));
            }
        }
        Set<String> expected = new TreeSet<>(subcommands());
        expected.add("all");
        assertThat(named).as("the scenarios in docs/experiments.md's experiments table").isEqualTo(expected);
    }

    /** The {@code all} row says how many runs it makes; the counts are those of {@link Scenarios#ALL}. */
    @Test
    void theReadmesAllRowCountsTheRunsScenarioAllMakes() throws IOException {
        String all = experimentsRows().stream().filter(row -> row[0].equals("`all`")).findFirst().orElseThrow()[1];
        int orders = 0;
        int others = 0;
        for (Scenario scenario : Scenarios.ALL) {
            int runs = scenario.policiesForAll().size();
            if (scenario.name().endsWith("-order")) {
                orders += runs;
            } else {
                others += runs;
            }
        }
        assertThat(all).contains("(" + others + " runs up to here)").contains("(" + orders + " more runs");
    }

    /** The cell of the options table whose option is {@code option}, e.g. {@code --store memory\|redis}. */
    private static List<String> readmeChoices(String option) throws IOException {
        Matcher row = Pattern.compile("\\n\\| `" + option + " ([^`]+)`").matcher(readme());
        assertThat(row.find()).as("docs/experiments.md's options table has a row for " + option).isTrue();
        return List.of(row.group(1).split("\\\\\\|"));
    }

    @Test
    void theReadmesOptionsTableNamesTheStoresAndPoliciesThereAre() throws IOException {
        assertThat(readmeChoices("--store")).isEqualTo(StoreBackends.NAMES);
        assertThat(readmeChoices("--policy")).isEqualTo(Arrays.stream(PolicyChoice.values())
                .map(p -> p.name().toLowerCase(Locale.ROOT)).toList());
    }

    /** Every command's help, whitespace folded, by the command's full name. */
    private static void helps(CommandLine command, java.util.Map<String, String> into) {
        into.put(command.getCommandSpec().qualifiedName(), command.getUsageMessage(CommandLine.Help.Ansi.OFF)
                .replaceAll("\\s+", " "));
        command.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help") && sub.getCommandSpec().parent() == command.getCommandSpec()) {
                helps(sub, into);
            }
        });
    }

    /** An option that takes any store the lab knows; cost's {@code --stores=STORES} takes its own two. */
    private static final Pattern STORE_OPTION = Pattern.compile("--(store|stores|compare)=STORE[ \\[]");

    @Test
    void everyStoreOptionsHelpNamesTheStoresItTakes() {
        java.util.Map<String, String> helps = new java.util.TreeMap<>();
        helps(LabCommand.commandLine(), helps);
        int storeOptions = 0;
        for (var help : helps.entrySet()) {
            String text = help.getValue();
            if (help.getKey().equals("lab faults")) {
                assertThat(text).as(help.getKey()).contains("comma-separated: " + String.join(", ", FaultCatalogue.stores()));
                storeOptions++;
            } else if (STORE_OPTION.matcher(text).find()) {
                assertThat(text).as(help.getKey()).contains(String.join(", ", StoreBackends.NAMES));
                storeOptions++;
            }
        }
        assertThat(storeOptions).as("commands that take a store").isGreaterThan(Scenarios.names().size());
    }

    @Test
    void everyPolicyOptionsHelpNamesThePoliciesItTakes() {
        java.util.Map<String, String> helps = new java.util.TreeMap<>();
        helps(LabCommand.commandLine(), helps);
        String every = "run, wait, raise or all";
        assertThat(Arrays.stream(PolicyChoice.values()).map(p -> p.name().toLowerCase(Locale.ROOT)).toList())
                .isEqualTo(List.of(every.replace(" or", ",").split(", ")));
        assertThat(helps.get("lab scenario in-flight")).contains("--policy=POLICY In-flight policy: " + every + ".");
        String library = Arrays.stream(LabPolicy.values()).filter(p -> p != LabPolicy.RUN)
                .map(p -> p.name().toLowerCase(Locale.ROOT)).reduce((a, b) -> a + ", " + b).orElseThrow() + " or all";
        assertThat(helps.get("lab scenario lease-overrun")).contains("policy of the library's coordinator: " + library);
        LabRun run = LabRun.of("scenario", "scope", "--store", "memory", "--policy", "run");
        assertThat(run.err()).contains("--policy must be " + library);
    }

    @Test
    void theStoreUsageErrorNamesEveryStore() {
        LabRun run = LabRun.of("scenario", "key-reuse", "--store", "floppy");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--store must be one of " + String.join(", ", StoreBackends.NAMES) + ", got 'floppy'");
    }
}
