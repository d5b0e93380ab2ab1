package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.ProvisioningException;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.peers.DbosCrashedWorkerScenario;
import dev.idemlab.lab.scenario.CheckResult;
import dev.idemlab.lab.scenario.Expectations;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.FailoverScenario;
import dev.idemlab.lab.scenario.HttpInFlightScenario;
import dev.idemlab.lab.scenario.RedeliveryBroker;
import dev.idemlab.lab.scenario.RedeliveryCrashScenario;
import dev.idemlab.lab.scenario.RedeliveryScenario;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioSettings;
import dev.idemlab.lab.scenario.Scenarios;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code lab check}: the regression gate. Runs every scenario on every store asked for and fails
 * when a policy that promises exactly-once charged more than once, when the run policy did not
 * double-charge (the race was not reproduced), when any outcome differs from the post's, or when a
 * store it was asked to check could not be checked (unless {@code --allow-skip}). On a single Redis and on
 * PostgreSQL the in-flight race also runs through the Spring Boot sample; a missing sample jar is a SKIP.
 * On every store the race runs on a Kafka consumer group too ({@code redelivery}, on a broker started
 * once for the whole check, or the one given by {@code --kafka-url}); on PostgreSQL the inbox's row, the
 * consumer killed mid-record ({@code redelivery-crash}) and DBOS Transact's crashed worker
 * ({@code dbos-crashed-worker}) as well.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Runs every scenario on every store and compares each run with the post, against the "
                + "provider's ledger. Prints one line per check; exits 1 if any check failed or a store asked for "
                + "(all three by default) could not be checked. On redis and postgres the in-flight race also runs "
                + "through the Spring Boot sample (examples/spring-boot-payments), a SKIP line when its jar is not built. On every store "
                + "the race also runs on a Kafka consumer group (redelivery, on a broker the check starts once, or --kafka-url); "
                + "on postgres also the inbox's row, a consumer killed mid-record (redelivery-crash) and DBOS Transact's "
                + "crashed worker (dbos-crashed-worker, its published double charges must still show).")
final class CheckCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--stores", paramLabel = "STORE[,STORE...]", split = ",", hideParamSyntax = true,
            description = "Stores to check, comma-separated: " + StoreBackends.NAMES_TEXT + ". Default: "
                    + StoreBackends.CHECKED_BY_DEFAULT_TEXT + ". On the lab's own cluster (redis-cluster, or redis with --redis-from cluster) the failover "
                    + "runs too, without and with WAIT.")
    List<String> stores;

    @Option(names = "--scenarios", paramLabel = "NAME[,NAME...]", split = ",", hideParamSyntax = true,
            description = "Only these scenarios, comma-separated (each with every policy it runs under), to "
                    + "rerun a row of the gate: ${COMPLETION-CANDIDATES}. Default: all of them.",
            completionCandidates = ScenarioNames.class)
    List<String> scenarios;

    @Option(names = "--allow-skip",
            description = "A store whose server cannot be had is reported as SKIP and does not fail the gate. "
                    + "Without it, such a store fails the check.")
    boolean allowSkip;

    /** Not an option of check: named here only to refuse it clearly rather than as an unknown option. */
    @Option(names = "--store", hidden = true, paramLabel = "STORE")
    String store;

    @Mixin
    ServerOptions servers;

    @Mixin
    KafkaOptions kafka;

    /** What runs on the lab's own Redis Cluster beside every scenario: failover without and with WAIT. */
    private static final List<ScenarioRunner.Plan> CLUSTER_PLANS = FailoverScenario.both().stream()
            .map(s -> new ScenarioRunner.Plan(s, s.policiesForAll())).toList();

    /**
     * What runs on a single Redis and on PostgreSQL beside every scenario: the in-flight race through the
     * Spring Boot sample, its result-cache mode (run) and the starter's reservation (wait, raise). Without
     * the sample's jar it is a SKIP line saying how to build it.
     */
    private static final List<ScenarioRunner.Plan> SAMPLE_PLANS = List.of(new ScenarioRunner.Plan(
            HttpInFlightScenario.throughSpringSample(), List.of(LabPolicy.RUN, LabPolicy.WAIT, LabPolicy.RAISE)));

    /** The cluster's and the sample's plans, less the scenarios not asked for. */
    private List<ScenarioRunner.Plan> clusterPlans = CLUSTER_PLANS;
    private List<ScenarioRunner.Plan> samplePlans = SAMPLE_PLANS;
    /** The Kafka race's plans on every store, and the plans that run on PostgreSQL only, less those not asked for. */
    private List<ScenarioRunner.Plan> kafkaPlans = List.of();
    private List<ScenarioRunner.Plan> postgresPlans = List.of();

    private int passed;
    private int failed;
    private int skipped;

    @Override
    public Integer call() throws InterruptedException {
        if (store != null) {
            throw new UsageException("check runs on several stores and takes --stores STORE[,STORE...], not --store");
        }
        List<String> names = names();
        Set<String> only = scenarioNames();
        ProvisioningOptions provisioning = servers.provisioning(names);
        // started on first use, by the first redelivery row: a check without one starts no broker, nor reads its URL
        boolean kafkaRows = only == null || only.contains(RedeliveryScenario.NAME) || only.contains(RedeliveryCrashScenario.NAME);
        try (RedeliveryBroker started = new RedeliveryBroker(kafkaRows ? kafka.url() : null)) {
            broker = started;
            return check(names, only, provisioning, started);
        }
    }

    /** The check's Kafka broker, started by the first row that needs it; named once on the output when it is. */
    private RedeliveryBroker broker;
    private boolean brokerNamed;

    /** Names the broker before the first row that uses it: the output says what it ran on, as it does for stores. */
    private void nameBroker(List<ScenarioRunner.Plan> plans, PrintWriter out) {
        boolean uses = plans.stream().anyMatch(plan -> plan.scenario() instanceof RedeliveryScenario
                || plan.scenario() instanceof RedeliveryCrashScenario);
        if (!uses || brokerNamed) {
            return;
        }
        brokerNamed = true;
        try {
            out.println("kafka " + broker.describe());
        } catch (RuntimeException e) {
            // each row that needs it then fails on its own, naming why
            out.println("kafka: could not be had: " + e.getMessage());
        }
        out.flush();
    }

    /**
     * The race on a consumer group on every store, in a classic group and in one of the consumer protocol,
     * ordered by a latch so that the gate does not depend on the machine's speed; on PostgreSQL the inbox's row, the consumer killed at each boundary in each
     * mode, and DBOS's crashed worker.
     */
    private static List<ScenarioRunner.Plan> kafkaPlans(RedeliveryBroker broker) {
        return List.of(new ScenarioRunner.Plan(RedeliveryScenario.latched(broker), List.of(LabPolicy.values())),
                new ScenarioRunner.Plan(RedeliveryScenario.onConsumerProtocol(broker), List.of(LabPolicy.values())));
    }

    private static List<ScenarioRunner.Plan> postgresPlans(RedeliveryBroker broker) {
        List<ScenarioRunner.Plan> plans = new ArrayList<>();
        plans.add(new ScenarioRunner.Plan(RedeliveryScenario.latchedInbox(broker), List.of(LabPolicy.WAIT)));
        for (String mode : RedeliveryCrashScenario.modes()) {
            for (String boundary : RedeliveryCrashScenario.boundaries()) {
                plans.add(new ScenarioRunner.Plan(new RedeliveryCrashScenario(broker, mode, boundary), List.of(LabPolicy.WAIT)));
            }
        }
        for (DbosCrashedWorkerScenario cell : DbosCrashedWorkerScenario.gated()) {
            plans.add(new ScenarioRunner.Plan(cell, List.of(LabPolicy.WAIT)));
        }
        return List.copyOf(plans);
    }

    private int check(List<String> names, Set<String> only, ProvisioningOptions provisioning, RedeliveryBroker broker)
            throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        kafkaPlans = asked(kafkaPlans(broker), only);
        postgresPlans = asked(postgresPlans(broker), only);
        List<ScenarioRunner.Plan> plans = asked(Scenarios.ALL.stream()
                .map(s -> new ScenarioRunner.Plan(s, s.policiesForAll())).toList(), only);
        clusterPlans = asked(clusterPlans, only);
        samplePlans = asked(samplePlans, only);
        int steps = 0;
        for (String name : names) {
            steps += stepsOn(name, provisioning, plans);
        }
        if (only != null && steps == 0) {
            throw new UsageException("--scenarios " + String.join(",", only) + " runs on none of the stores asked for ("
                    + String.join(", ", names) + ")");
        }
        Progress progress = new Progress(spec.commandLine().getErr(), Progress.onTerminal(), steps);
        List<String> notChecked = new ArrayList<>();
        try {
            for (String name : names) {
                if (!checkStore(name, provisioning, plans, out, progress)) {
                    notChecked.add(name);
                }
            }
        } finally {
            progress.close();
        }
        out.println();
        out.println("check: " + passed + " passed, " + failed + " failed, " + skipped + " skipped"
                + (only == null ? "" : " (only " + String.join(", ", only) + ")")
                + (notChecked.isEmpty() || allowSkip ? "" : "; could not check " + String.join(", ", notChecked)
                + " (--allow-skip to skip a store without a server)"));
        // A gate asked for some scenarios that checked none of them (every one skipped) has not passed.
        boolean checkedNone = only != null && passed + failed == 0;
        if (checkedNone) {
            out.println("check: none of the scenarios asked for (" + String.join(", ", only) + ") could be checked "
                    + "on " + String.join(", ", names));
        }
        out.flush();
        return failed == 0 && !checkedNone ? 0 : 1;
    }

    private List<String> names() {
        if (stores == null) {
            return StoreBackends.CHECKED_BY_DEFAULT;
        }
        Set<String> names = new LinkedHashSet<>();
        for (String name : stores) {
            names.add(StoreOptions.storeName("--stores", name));
        }
        return List.copyOf(names);
    }

    /** The scenarios asked for by {@code --scenarios}, each checked; {@code null} for all. */
    private Set<String> scenarioNames() {
        if (scenarios == null) {
            return null;
        }
        List<String> known = ScenarioNames.all();
        Set<String> asked = new LinkedHashSet<>();
        for (String name : scenarios) {
            String trimmed = name.trim();
            if (!known.contains(trimmed)) {
                throw new UsageException("--scenarios takes names of the gate's scenarios (" + String.join(", ", known)
                        + "), got '" + trimmed + "'");
            }
            asked.add(trimmed);
        }
        return asked;
    }

    private static List<ScenarioRunner.Plan> asked(List<ScenarioRunner.Plan> plans, Set<String> only) {
        return only == null ? plans : plans.stream().filter(plan -> only.contains(plan.scenario().name())).toList();
    }

    /** The names {@code --scenarios} takes: every scenario of the gate, the cluster's failover among them. */
    static final class ScenarioNames implements Iterable<String> {

        static List<String> all() {
            List<String> names = new ArrayList<>(Scenarios.names());
            names.add(FailoverScenario.NAME);
            names.add(RedeliveryScenario.NAME);
            names.add(RedeliveryCrashScenario.NAME);
            names.add(DbosCrashedWorkerScenario.NAME);
            return List.copyOf(names);
        }

        @Override
        public java.util.Iterator<String> iterator() {
            return all().iterator();
        }
    }

    /** How many runs {@code plans} make on store {@code name}, with the cluster's and the sample's where they apply. */
    private int stepsOn(String name, ProvisioningOptions provisioning, List<ScenarioRunner.Plan> plans) {
        return ScenarioRunner.steps(plans) + (onLocalCluster(name, provisioning) ? clusterPlans.size() : 0)
                + (throughSample(name, provisioning) ? ScenarioRunner.steps(samplePlans) : 0)
                + ScenarioRunner.steps(kafkaPlans) + (name.equals("postgres") ? ScenarioRunner.steps(postgresPlans) : 0);
    }

    /** Whether {@code name} will run on the lab's own cluster, where the failover runs too. */
    private static boolean onLocalCluster(String name, ProvisioningOptions provisioning) {
        return (name.equals(RedisClusterBackend.NAME) || name.equals("redis") && RedisClusterBackend.asked(provisioning))
                && provisioning.redisFrom() != dev.idemlab.lab.infra.Origin.URL
                && (provisioning.redisFrom() == dev.idemlab.lab.infra.Origin.CLUSTER
                        || !RedisClusterBackend.isClusterUrl(provisioning.effectiveRedisUrl()));
    }

    /** Whether the race through the Spring sample runs on {@code name}: a single Redis, or PostgreSQL. */
    private static boolean throughSample(String name, ProvisioningOptions provisioning) {
        return name.equals("postgres") || name.equals("redis") && !RedisClusterBackend.asked(provisioning);
    }

    /** Checks one store; {@code false} when it could not be checked at all. */
    private boolean checkStore(String name, ProvisioningOptions provisioning, List<ScenarioRunner.Plan> plans,
                               PrintWriter out, Progress progress) throws InterruptedException {
        StoreBackend backend;
        try {
            backend = StoreBackends.open(name, provisioning);
        } catch (ProvisioningException unavailable) {
            String verdict = allowSkip ? "SKIP" : "FAIL";
            if (allowSkip) {
                skipped++;
            } else {
                failed++;
            }
            String line = verdict + " " + name + ": could not be checked: " + unavailable.getMessage();
            out.println(line);
            out.flush();
            progress.note(line);
            progress.dropped(stepsOn(name, provisioning, plans));
            return false;
        }
        if (backend instanceof RedisClusterBackend cluster && cluster.localCluster().isPresent()) {
            plans = new ArrayList<>(plans);
            plans.addAll(clusterPlans);
        }
        if (throughSample(name, provisioning)) {
            plans = new ArrayList<>(plans);
            plans.addAll(samplePlans);
        }
        plans = new ArrayList<>(plans);
        plans.addAll(kafkaPlans);
        if (name.equals("postgres")) {
            plans.addAll(postgresPlans);
        }
        try (backend) {
            out.println("store " + backend.server().describe());
            out.flush();
            nameBroker(plans, out);
            ScenarioContext context = new ScenarioContext(backend, ScenarioSettings.defaults(),
                    ((LabCommand) spec.root().userObject()).coordinators());
            ScenarioRunner runner = new ScenarioRunner(context, spec.commandLine().getErr(), progress);
            List<ScenarioRunner.Skipped> skippedScenarios;
            try {
                skippedScenarios = runner.run(plans, run -> {
                    CheckResult result = Expectations.check(run);
                    if (result.passed()) {
                        passed++;
                    } else {
                        failed++;
                    }
                    out.println(result.line());
                    out.flush();
                    return result.passed() ? "PASS" : "FAIL";
                }, (step, error) -> {
                    // a row that could not run fails the gate; the others still run and the summary is printed
                    failed++;
                    out.println("FAIL " + backend.server().store() + " " + step + ": could not run: "
                            + (error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage()));
                    out.flush();
                    return "FAIL";
                });
            } finally {
                StoreOptions.cleanUp(backend, spec.commandLine().getErr());
            }
            ScenarioRunner.countVariants(skippedScenarios).forEach((skip, count) -> {
                skipped += count;
                // named as the PASS lines name it: redis asked of a cluster runs as redis-cluster
                out.println("SKIP " + backend.server().store() + " " + skip.scenario() + (count > 1 ? " (" + count + " variants)" : "")
                        + ": " + skip.reason());
            });
        }
        return true;
    }
}
