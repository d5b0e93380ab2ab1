package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.FailoverScenario;
import dev.idemlab.lab.scenario.ReplicaWaitLatency;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** {@code lab scenario failover}: what asynchronous replication loses, without and with WAIT. */
@Command(name = "failover", mixinStandardHelpOptions = true,
        description = "On the lab's own Redis Cluster: freezes the key's replica, charges on its master, kills the "
                + "master, promotes the replica (CLUSTER FAILOVER TAKEOVER) and retries. Without WAIT the retry charges "
                + "again; with WAIT 1 after the reservation (failing closed) the ledger holds one charge. --store redis "
                + "means the local cluster here.")
final class FailoverCommand extends AbstractScenarioCommand {

    enum Variant { WITHOUT_WAIT, WITH_WAIT, BOTH }

    static final int MAX_RUNS = 100;
    static final int MAX_SAMPLES = 100_000;

    @Option(names = "--variant", paramLabel = "VARIANT", defaultValue = "both",
            converter = VariantConverter.class,
            description = "without-wait, with-wait or both. Default: ${DEFAULT-VALUE}.")
    Variant variant;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "1",
            description = "Runs of each variant, 1 to " + MAX_RUNS + "; a summary gives the duplicate rate. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Option(names = "--wait-latency-samples", paramLabel = "N", defaultValue = "0",
            description = "Also time N reservations without and N with WAIT 1 on the healthy cluster, 0 to "
                    + MAX_SAMPLES + ". Default: ${DEFAULT-VALUE}.")
    int samples;

    @Override
    String storeFor(String named) {
        return named.equals("redis") ? RedisClusterBackend.NAME : named;
    }

    @Override
    void checkStore(String store) {
        Bounds.check("--runs", runs, 1, MAX_RUNS);
        Bounds.check("--wait-latency-samples", samples, 0, MAX_SAMPLES);
        if (!store.equals(RedisClusterBackend.NAME)) {
            throw new UsageException("failover needs a Redis Cluster (--store redis or redis-cluster): it kills and "
                    + "promotes nodes, got --store " + store);
        }
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        List<ScenarioRunner.Plan> plans = new ArrayList<>();
        List<LabPolicy> repeated = Collections.nCopies(runs, LabPolicy.WAIT);
        if (variant != Variant.WITH_WAIT) {
            plans.add(new ScenarioRunner.Plan(FailoverScenario.withoutWait(), repeated));
        }
        if (variant != Variant.WITHOUT_WAIT) {
            plans.add(new ScenarioRunner.Plan(FailoverScenario.withWait(), repeated));
        }
        return plans;
    }

    @Override
    String summary(List<ScenarioRun> done, ScenarioContext context) throws InterruptedException {
        StringBuilder out = new StringBuilder();
        if (!done.isEmpty()) {
            out.append("failover over ").append(runs).append(" run(s) per variant (ledger of each run):\n");
            for (String label : List.of(FailoverScenario.WITHOUT_WAIT, FailoverScenario.WITH_WAIT)) {
                List<ScenarioRun> mine = done.stream().filter(r -> r.label().equals(label)).toList();
                if (mine.isEmpty()) {
                    continue;
                }
                long duplicated = mine.stream().filter(r -> r.charges().size() > 1).count();
                long lost = mine.stream().filter(r -> "absent".equals(r.settings().get("recordAfterFailover"))).count();
                long refused = mine.stream().filter(r -> r.responses().get(0).equals("IdempotencyStoreUnavailableException"))
                        .count();
                out.append(String.format(Locale.ROOT, "  %-28s runs=%d  duplicate charges in %d (%.0f%%)  charges=%d  "
                                + "no record on the new master in %d  A refused in %d%n", label, mine.size(), duplicated,
                        100.0 * duplicated / mine.size(), mine.stream().mapToInt(r -> r.charges().size()).sum(), lost,
                        refused));
            }
        }
        if (samples > 0 && context.backend() instanceof RedisClusterBackend cluster) {
            out.append(ReplicaWaitLatency.measure(cluster, samples).describe());
        }
        return out.toString();
    }

    /** {@code --variant}, case-insensitive, with dashes. */
    static final class VariantConverter implements picocli.CommandLine.ITypeConverter<Variant> {
        @Override
        public Variant convert(String value) {
            try {
                return Variant.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "expected without-wait, with-wait or both, got '" + value + "'");
            }
        }
    }
}
