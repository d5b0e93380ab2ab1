package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.testsupport.TestKafka;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.ConsumerLoad;
import dev.idemlab.lab.load.ConsumerLoad.Mode;
import dev.idemlab.lab.load.ConsumerLoad.Result;
import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code lab consumer-load}: the Kafka adapter's throughput and latency beside a bare consumer's. */
@Command(name = "consumer-load", mixinStandardHelpOptions = true,
        description = "Messages per second through the Kafka adapter (the idempotent consumer on a store) beside a "
                + "bare consumer running the same handler on the same broker, then each one's end-to-end latency at a "
                + "paced rate. The handler works --handler-ms and charges the provider; a share of the records is "
                + "sent twice, as a redelivery would be. Every run's charges are read from the provider's ledger: the "
                + "bare consumer charges the records sent twice again, the adapter must charge each key once. Exits 1 "
                + "when it does not. On a Kafka broker the lab starts in its own JVM (KRaft, 127.0.0.1), or the one "
                + "given by --kafka-url.")
final class ConsumerLoadCommand implements Callable<Integer> {

    /** The adapter's throughput is to be at least this share of the bare consumer's (a 1 ms handler). */
    static final double TARGET_RATIO = 0.7;
    private static final Set<String> STORES = Set.of("memory", "redis", "postgres");

    @Spec
    CommandSpec spec;

    @Mixin
    ServerOptions servers;

    @Option(names = "--stores", paramLabel = "STORES", split = ",", defaultValue = "redis,postgres",
            description = "The adapter's stores, comma-separated: memory, redis, postgres. Default: ${DEFAULT-VALUE}.")
    List<String> stores;

    @Option(names = "--messages", paramLabel = "N", defaultValue = "5000",
            description = "Records with keys of their own in the drained topic, 10 to 1000000. Default: ${DEFAULT-VALUE}.")
    int messages;

    @Option(names = "--duplicates", paramLabel = "FRACTION", defaultValue = "0.05",
            description = "The share of those records sent a second time, 0 to 1. Default: ${DEFAULT-VALUE}.")
    double duplicates;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "3",
            description = "The topics' partitions, 1 to 64. Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--handler-ms", paramLabel = "MS", defaultValue = "1",
            description = "What the handler works before it charges, 0 to 1000 ms. Default: ${DEFAULT-VALUE}.")
    int handlerMillis;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
            description = "How many times each store's adapter run is repeated, 1 to 20, each beside the bare runs either "
                    + "side of it; a store is judged on its median ratio. Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Option(names = "--paced-rate", paramLabel = "PER_SECOND", defaultValue = "200",
            description = "Records a second in the paced phase, 1 to 10000. Default: ${DEFAULT-VALUE}.")
    int pacedRate;

    @Option(names = "--paced-seconds", paramLabel = "N", defaultValue = "10",
            description = "How long the paced phase produces, 1 to 600 s. Default: ${DEFAULT-VALUE}.")
    int pacedSeconds;

    @Mixin
    KafkaOptions kafkaOptions;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table or markdown. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Override
    public Integer call() throws InterruptedException {
        checkUsage();
        String url = kafkaOptions.url();
        var provisioning = servers.provisioning(stores);
        OutputOptions output = OutputOptions.tableOrMarkdown(format, out);
        PrintWriter err = spec.commandLine().getErr();
        ConsumerLoad.Settings settings = new ConsumerLoad.Settings(messages, duplicates, partitions,
                Duration.ofMillis(handlerMillis), pacedRate, pacedSeconds);
        List<Result> results = new ArrayList<>();
        List<String> serverLines = new ArrayList<>();
        String broker;
        try (TestKafka kafka = TestKafka.provide(url)) {
            broker = kafka.toString();
            err.println("consumer-load: broker " + broker);
            err.flush();
            ConsumerLoad load = new ConsumerLoad(kafka, settings, line -> {
                err.println("consumer-load: " + line);
                err.flush();
            });
            // A bare run before the first adapter run and after each: each adapter run is read beside the bare
            // runs either side of it, so that a change in the machine's load between runs does not land in its ratio;
            // the stores take turns, round after round, so that no store has the machine's quiet (or busy) minutes.
            List<StoreBackend> backends = new ArrayList<>();
            try {
                for (String store : stores) {
                    StoreBackend backend = StoreBackends.open(store, provisioning);
                    backends.add(backend);
                    serverLines.add(backend.server().describeWithDurability());
                }
                results.add(load.run(Mode.BARE, null, null));
                for (int round = 1; round <= rounds; round++) {
                    for (StoreBackend backend : backends) {
                        try (IdempotencyStore opened = backend.openStore()) {
                            results.add(load.run(Mode.ADAPTER, backend.server().store(), opened));
                        }
                        results.add(load.run(Mode.BARE, null, null));
                    }
                }
            } finally {
                closeAll(backends, err);
            }
        }
        output.emit(render(settings, broker, serverLines, results, format == ReportFormat.MARKDOWN), spec.commandLine().getOut());
        boolean once = results.stream().filter(r -> r.mode() == Mode.ADAPTER).allMatch(Result::oncePerKey);
        return once ? 0 : 1;
    }

    /** Closes every backend, each on its own: one that fails to stop is said, and the others still stop. */
    private static void closeAll(List<StoreBackend> backends, PrintWriter err) {
        for (StoreBackend backend : backends) {
            try {
                backend.close();
            } catch (RuntimeException e) {
                err.println("consumer-load: could not stop " + backend.server().describe() + ": " + e.getMessage());
                err.flush();
            }
        }
    }

    private void checkUsage() {
        for (String store : stores) {
            if (!STORES.contains(store)) {
                throw new UsageException("--stores takes memory, redis and postgres (a store the adapter runs on), got '"
                        + store + "'");
            }
        }
        if (new java.util.HashSet<>(stores).size() != stores.size()) {
            throw new UsageException("--stores names each store once, got " + String.join(",", stores));
        }
        range("--messages", messages, 10, 1_000_000);
        range("--partitions", partitions, 1, 64);
        range("--handler-ms", handlerMillis, 0, 1000);
        range("--rounds", rounds, 1, 20);
        range("--paced-rate", pacedRate, 1, 10_000);
        range("--paced-seconds", pacedSeconds, 1, 600);
        if (!(duplicates >= 0 && duplicates <= 1)) {
            throw new UsageException("--duplicates must be a fraction from 0 to 1, got " + duplicates);
        }
    }

    private static void range(String option, int value, int low, int high) {
        if (value < low || value > high) {
            throw new UsageException(option + " must be from " + low + " to " + high + ", got " + value);
        }
    }

    /** The bare runs' mean throughput either side of the adapter's run at {@code index}. */
    static double bareBeside(List<Result> results, int index) {
        return (results.get(index - 1).perSecond() + results.get(index + 1).perSecond()) / 2;
    }

    static String render(ConsumerLoad.Settings settings, String broker, List<String> servers, List<Result> results,
                         boolean markdown) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%sone consumer (one thread) per run on %s, its topics of %d partitions; "
                        + "the handler works %d ms, then charges the provider in this JVM (which does not deduplicate). "
                        + "Drained: %,d records with keys of their own, the topic filled first, then consumed. Paced: "
                        + "%d records a second for %d s, %.0f%% of them sent twice, produced once the consumer has its "
                        + "partitions; end-to-end latency from the producer's timestamp to the handling's end (the "
                        + "consumer's fetch waits up to 20 ms for records). A bare run comes before the first adapter "
                        + "run and after each, the stores taking turns for %d round%s; an adapter's ratio is to the "
                        + "mean of the bare runs either side, and a store is judged on the median of its rounds' ratios. "
                        + "Stores: %s.%n%n",
                markdown ? "" : "consumer-load: ", broker, settings.partitions(), settings.handlerTime().toMillis(),
                settings.messages(), settings.pacedRate(), settings.pacedSeconds(), settings.duplicateShare() * 100,
                rounds(results), rounds(results) == 1 ? "" : "s", servers.isEmpty() ? "none" : String.join("; ", servers)));
        out.append(markdown
                ? "| consumer | drained | msg/s | x bare | paced deliveries | keys | charges (ledger) | keys charged twice "
                        + "| keys never charged | p50 | p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
                : String.format(Locale.ROOT, "%-22s %8s %7s %6s %10s %6s %8s %6s %6s %9s %9s%n", "consumer", "drained",
                        "msg/s", "x bare", "deliveries", "keys", "charges", "twice", "never", "p50", "p99"));
        int bareRun = 0;
        boolean several = rounds(results) > 1;
        Map<String, Integer> storeRuns = new HashMap<>();
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            String name = r.mode() == Mode.BARE ? "bare consumer, run " + (++bareRun) : "adapter on " + r.store()
                    + (several ? ", round " + storeRuns.merge(r.store(), 1, Integer::sum) : "");
            String ratio = r.mode() == Mode.BARE ? "-" : String.format(Locale.ROOT, "%.2f", r.perSecond() / bareBeside(results, i));
            ConsumerLoad.Ledger paced = r.pacedLedger();
            out.append(String.format(Locale.ROOT, markdown ? "| %s | %,d | %,.0f | %s | %,d | %,d | %,d | %,d | %,d | %.1f ms | %.1f ms |%n"
                            : "%-22s %,8d %,7.0f %6s %,10d %,6d %,8d %,6d %,6d %6.1f ms %6.1f ms%n", name, r.drained(),
                    r.perSecond(), ratio, r.pacedDeliveries(), paced.keys(), paced.charges(), paced.chargedTwice(),
                    paced.neverCharged(), r.p50Micros() / 1000.0, r.p99Micros() / 1000.0));
        }
        out.append(markdown ? "\n" : "");
        Map<String, List<Integer>> byStore = new LinkedHashMap<>();
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i).mode() == Mode.ADAPTER) {
                byStore.computeIfAbsent(results.get(i).store(), store -> new ArrayList<>()).add(i);
            }
        }
        byStore.forEach((store, runs) -> out.append(summary(store, runs, results, markdown)));
        return out.toString();
    }

    /** How many adapter runs each store had. */
    private static int rounds(List<Result> results) {
        Map<String, Integer> runs = new HashMap<>();
        results.stream().filter(r -> r.mode() == Mode.ADAPTER).forEach(r -> runs.merge(r.store(), 1, Integer::sum));
        return runs.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    /** One store's line: its ledger in every round, its ratios to the bare runs either side, judged on their median. */
    private static String summary(String store, List<Integer> runs, List<Result> results, boolean markdown) {
        List<String> wrong = new ArrayList<>();
        double[] ratios = new double[runs.size()];
        for (int k = 0; k < runs.size(); k++) {
            Result r = results.get(runs.get(k));
            ratios[k] = r.perSecond() / bareBeside(results, runs.get(k));
            if (!r.oncePerKey()) {
                wrong.add((runs.size() > 1 ? "round " + (k + 1) + ": " : "") + "drained " + describe(r.drainLedger())
                        + "; paced " + describe(r.pacedLedger()));
            }
        }
        String ledger = wrong.isEmpty()
                ? "one charge per key, none lost (ledger" + (runs.size() > 1 ? ", every round)" : ")")
                : "NOT one charge per key (ledger): " + String.join("; ", wrong);
        if (runs.size() == 1) {
            int i = runs.get(0);
            return String.format(Locale.ROOT, "%sadapter on %s: %s; %,.0f msg/s drained, %.2fx the bare runs either "
                            + "side (%,.0f and %,.0f msg/s), %s the target of %.1fx%n", markdown ? "* " : "", store, ledger,
                    results.get(i).perSecond(), ratios[0], results.get(i - 1).perSecond(), results.get(i + 1).perSecond(),
                    ratios[0] >= TARGET_RATIO ? "meeting" : "missing", TARGET_RATIO);
        }
        double[] sorted = ratios.clone();
        java.util.Arrays.sort(sorted);
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        StringBuilder each = new StringBuilder();
        for (double ratio : ratios) {
            each.append(each.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", ratio));
        }
        return String.format(Locale.ROOT, "%sadapter on %s: %s; median %.2fx the bare runs either side over %d rounds "
                        + "(%s in turn), %s the target of %.1fx%n", markdown ? "* " : "", store, ledger, median, runs.size(),
                each, median >= TARGET_RATIO ? "meeting" : "missing", TARGET_RATIO);
    }

    private static String describe(ConsumerLoad.Ledger ledger) {
        return ledger.charges() + " charges for " + ledger.keys() + " keys, " + ledger.chargedTwice() + " charged twice, "
                + ledger.neverCharged() + " never";
    }
}
