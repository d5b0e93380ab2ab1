package dev.idemlab.lab.cli;

import dev.idemlab.lab.http.SpringSampleJar;
import dev.idemlab.lab.infra.ProvisioningException;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.nemesis.Clients;
import dev.idemlab.lab.nemesis.NemesisReport;
import dev.idemlab.lab.nemesis.NemesisResult;
import dev.idemlab.lab.nemesis.NemesisRun;
import dev.idemlab.lab.nemesis.NemesisSettings;
import dev.idemlab.lab.nemesis.Sabotage;
import dev.idemlab.lab.nemesis.Through;
import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code lab nemesis}: a seeded random workload against a real store while faults are injected at random. */
@Command(name = "nemesis", mixinStandardHelpOptions = true,
        description = "Sends a seeded random workload (keys shared by 2-8 callers, call and callAsync, cancels, "
                + "WAIT and RAISE, actions longer than the lease, actions that fail) to a real store while a "
                + "nemesis injects faults on a random schedule (pauses, dropped connections, a proxy that freezes, "
                + "drops replies or resets, stopped servers, servers restarted from an older snapshot, locked tables, "
                + "a jumping clock; on every store but memory, holders in child JVMs paused past their lease "
                + "(SIGSTOP) or killed (SIGKILL) during their action), then checks the whole history against the provider's ledger. Exits 1 on a violation, printing the key's history, "
                + "a timeline and the command that replays the same schedule.")
final class NemesisCommand implements Callable<Integer> {

    static final List<String> STORES = StoreBackends.NAMES;

    @Spec
    CommandSpec spec;

    @Option(names = "--store", paramLabel = "STORE", defaultValue = "memory",
            description = "Store to run on: " + StoreBackends.NAMES_TEXT + " (redis-cluster: the lab's own local cluster). On a server "
                    + "given by URL only the network's faults are played (the proxy's freeze, dropped replies and "
                    + "resets) and the lab's own child-JVM holders paused or killed, never pauses, kills or locks "
                    + "that would hit its other clients. "
                    + "Default: ${DEFAULT-VALUE}.")
    String store;

    @Option(names = "--seed", paramLabel = "N",
            description = "What the workload's and the faults' schedules are drawn from. Default: a new one, printed.")
    Long seed;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.AtLeastASecond.class,
            description = "How long requests keep arriving, 1s to 1h (20s, 1m, 30m). Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--lease-ms", paramLabel = "MS", defaultValue = "3000",
            description = "The coordinator's lease, 500 to 60000 ms; some actions outlive it. Default: ${DEFAULT-VALUE}.")
    long leaseMillis;

    @Option(names = "--downstream-key",
            description = "The provider deduplicates on the key the action passes it: then nothing excuses a second charge.")
    boolean downstreamKey;

    @Option(names = "--sabotage", paramLabel = "WHAT", defaultValue = "none", converter = SabotageConverter.class,
            description = "Break something on purpose, to see the checker fail: none, result-cache (the post's "
                    + "result cache as the coordinator), forgetful-store (a store that now and then grants a "
                    + "pending key; not with --through sample), shared-scope (with --through http or webflux: the "
                    + "filter puts every client in one scope), commit-first (with --through kafka: each member commits "
                    + "its poll before handling it), bare-handler (with --through kafka: the handler without the adapter). "
                    + "Default: ${DEFAULT-VALUE}.")
    Sabotage sabotage;

    @Option(names = "--effects", paramLabel = "WHERE", defaultValue = "none",
            description = "none (each request only charges) or local: each request places an order in the store's "
                    + "own PostgreSQL through a workflow of local effects (order written with its recovery point, "
                    + "charge with the step's downstream key, order paid), some callers failing after their order "
                    + "was written, and the orders are read back beside the answers. Run as local effects are meant "
                    + "to be used: every caller fails closed and the provider deduplicates on each step's key "
                    + "(--downstream-key is implied). postgres only; holders in child JVMs run the same workflow "
                    + "and are killed or paused at a step boundary (after the order, after the charge, before the "
                    + "order is paid), then recovered by the key's retries. "
                    + "Default: ${DEFAULT-VALUE}.")
    String effects;

    @Option(names = "--through", paramLabel = "LAYER", defaultValue = "coordinator", converter = ThroughConverter.class,
            description = "The layer the calls go through: coordinator (call and callAsync), proxy (an @Idempotent "
                    + "interface made by Idempotency.proxy, a synchronous and an asynchronous method; cancels reach "
                    + "the stage the proxy returned), http (the demo API's filter over HTTP on 127.0.0.1, one server "
                    + "per policy and store-failure mode, three bearer clients sending the same keys for their own "
                    + "orders, checked per client; asynchronous callers that cancel give up their exchange), webflux "
                    + "(the same clients, route and checks, the WebFlux filter on Reactor Netty on 127.0.0.1 in front "
                    + "of the same charge route; not with --sabotage result-cache), "
                    + "sample (the Spring Boot sample, examples/spring-boot-payments, in a JVM of its own over HTTP, "
                    + "its jar built by ./mvnw package: on redis or postgres, its store client through the nemesis's "
                    + "proxy, failing closed under WAIT, two bearer clients with keys of their own; the holder "
                    + "faults pause its JVM past the lease or kill it and start it again; --sabotage result-cache "
                    + "runs its result-cache mode), kafka (the nemesis on consumers: a seeded stream of charge records, "
                    + "some sent twice, into a topic of 4 partitions on the lab's Kafka broker; a group through the "
                    + "Kafka adapter on the store, two members in child JVMs killed (SIGKILL) and stopped past their "
                    + "session and poll interval (SIGSTOP), members of the lab's joining and leaving, the broker "
                    + "restarted, the store's faults; checked from the ledger and the broker's offsets: every key "
                    + "charged, one charge per key unless a kill or stop of its handler or a store fault explains it, "
                    + "no commit past an unfinished record; redis or postgres; --sabotage commit-first or bare-handler). "
                    + "Default: ${DEFAULT-VALUE}.")
    Through through;

    @Option(names = "--kafka-url", paramLabel = "URL",
            description = "With --through kafka: a broker of yours (kafka://host:port or host:port), used as a scratch "
                    + "broker whose topic the run creates and deletes; never restarted. Default: a private broker in the "
                    + "lab's JVM, or the one in IDEMLAB_KAFKA_URL.")
    String kafkaUrl;

    @Option(names = "--clients", paramLabel = "WHO", defaultValue = "bearer", converter = ClientsConverter.class,
            description = "With --through http or webflux: bearer (three clients with bearer tokens), anonymous (two with "
                    + "tokens and one without, on a route that allows anonymous clients) or named-anonymous (as "
                    + "anonymous, one of the two authenticated as a principal named anonymous). "
                    + "Default: ${DEFAULT-VALUE}.")
    Clients clients;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table (the report as text) or markdown (the results page's row, then the report). "
                    + "Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Mixin
    ServerOptions servers;

    @Override
    public Integer call() throws Exception {
        String name = store.trim().toLowerCase(Locale.ROOT);
        if (!STORES.contains(name)) {
            throw new UsageException("--store must be one of " + String.join(", ", STORES) + ", got '" + store + "'");
        }
        if (leaseMillis < 500 || leaseMillis > 60_000) {
            throw new UsageException("--lease-ms must be from 500 to 60000, got " + leaseMillis);
        }
        String where = effects.trim().toLowerCase(Locale.ROOT);
        if (!where.equals("none") && !where.equals("local")) {
            throw new UsageException("--effects must be none or local, got '" + effects + "'");
        }
        boolean localEffects = where.equals("local");
        if (localEffects && !name.equals("postgres")) {
            throw new UsageException("--effects local needs --store postgres: the orders live in the store's own "
                    + "database, got --store " + name);
        }
        if (localEffects && through != Through.COORDINATOR) {
            throw new UsageException("--effects local calls the coordinator with the workflow: --through must be "
                    + "coordinator, got " + through.id());
        }
        if (localEffects && sabotage != Sabotage.NONE) {
            throw new UsageException("--effects local runs the library as a team would: --sabotage must be none, got "
                    + sabotage.id());
        }
        if (format == ReportFormat.JSON) {
            throw new UsageException("--format must be table or markdown, got 'json'");
        }
        validateLayer();
        if (through == Through.KAFKA) {
            return consumers(name);
        }
        if (kafkaUrl != null) {
            throw new UsageException("--kafka-url names the broker of --through kafka, got --through " + through.id());
        }
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.validate();
        long chosenSeed = seed != null ? seed : System.nanoTime() ^ Double.doubleToLongBits(Math.random());
        NemesisSettings settings = new NemesisSettings(chosenSeed, duration, Duration.ofMillis(leaseMillis),
                downstreamKey || localEffects, sabotage, through, clients, localEffects);
        PrintWriter err = spec.commandLine().getErr();
        err.println("nemesis: seed " + chosenSeed + " on " + name + " through " + through.id()
                + (localEffects ? " with local effects" : "") + " for " + duration.toSeconds() + " s");
        err.flush();
        NemesisResult result;
        try (StoreBackend backend = open(name)) {
            result = NemesisRun.run(backend, settings, line -> {
                err.println("nemesis: " + line);
                err.flush();
            });
        }
        output.emit(format == ReportFormat.MARKDOWN ? NemesisReport.markdown(result) : NemesisReport.text(result),
                spec.commandLine().getOut());
        return result.passed() ? 0 : 1;
    }

    /** The nemesis on consumers: its own run, checker and report. */
    private int consumers(String name) throws Exception {
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.validate();
        long chosenSeed = seed != null ? seed : System.nanoTime() ^ Double.doubleToLongBits(Math.random());
        if (kafkaUrl != null) {
            try {
                dev.idemlab.idempotency.testsupport.TestKafka.bootstrapServersOf(kafkaUrl.strip());
            } catch (IllegalStateException malformed) {
                throw new UsageException("--kafka-url: " + malformed.getMessage());
            }
        }
        dev.idemlab.lab.nemesis.ConsumerNemesis.Settings settings = new dev.idemlab.lab.nemesis.ConsumerNemesis.Settings(
                chosenSeed, duration, Duration.ofMillis(leaseMillis), downstreamKey, sabotage, true, kafkaUrl);
        PrintWriter err = spec.commandLine().getErr();
        err.println("nemesis: seed " + chosenSeed + " on " + name + " through kafka for " + duration.toSeconds() + " s");
        err.flush();
        dev.idemlab.lab.nemesis.ConsumerNemesisResult result;
        try (StoreBackend backend = open(name)) {
            result = dev.idemlab.lab.nemesis.ConsumerNemesis.run(backend, settings, line -> {
                err.println("nemesis: " + line);
                err.flush();
            });
        }
        output.emit(format == ReportFormat.MARKDOWN ? dev.idemlab.lab.nemesis.ConsumerReport.markdown(result)
                : dev.idemlab.lab.nemesis.ConsumerReport.text(result), spec.commandLine().getOut());
        return result.passed() ? 0 : 1;
    }

    /** Refuses {@code --clients} or a sabotage that the layer cannot have. */
    private void validateLayer() {
        boolean consumerSabotage = sabotage == Sabotage.COMMIT_FIRST || sabotage == Sabotage.BARE_HANDLER;
        if (through == Through.KAFKA) {
            String name = store.trim().toLowerCase(Locale.ROOT);
            if (!name.equals("redis") && !name.equals("postgres")) {
                throw new UsageException("--through kafka runs consumers in child JVMs on a store they can reach: "
                        + "--store must be redis or postgres, got '" + store + "'");
            }
            if (sabotage != Sabotage.NONE && !consumerSabotage) {
                throw new UsageException("--through kafka breaks the consumers, not the coordinator: --sabotage must be "
                        + "none, commit-first or bare-handler, got " + sabotage.id());
            }
            return;
        }
        if (consumerSabotage) {
            throw new UsageException("--sabotage " + sabotage.id() + " breaks a consumer: it needs --through kafka, got "
                    + "--through " + through.id());
        }
        if (clients != Clients.BEARER && !through.filter()) {
            throw new UsageException("--clients " + clients.id() + " is a route's setting: it needs --through http "
                    + "or webflux, got --through " + through.id());
        }
        if (sabotage == Sabotage.SHARED_SCOPE && !through.filter()) {
            throw new UsageException("--sabotage shared-scope breaks the HTTP filter's scoping: it needs --through http "
                    + "or webflux, got --through " + through.id());
        }
        if (sabotage == Sabotage.RESULT_CACHE && through == Through.WEBFLUX) {
            throw new UsageException("--sabotage result-cache puts the lab's result cache, which derives no downstream "
                    + "key, behind the route, and the WebFlux filter needs one: with --through webflux it must be "
                    + "none, forgetful-store or shared-scope");
        }
        if (through == Through.SAMPLE) {
            validateSample();
        }
    }

    /** The sample runs in a JVM of its own, from its jar, on a server that JVM can reach. */
    private void validateSample() {
        String name = store.trim().toLowerCase(Locale.ROOT);
        if (!name.equals("redis") && !name.equals("postgres")) {
            throw new UsageException("--through sample runs the Spring Boot sample in a JVM of its own on a single "
                    + "Redis or a PostgreSQL server: --store must be redis or postgres, got '" + store + "'");
        }
        if (sabotage == Sabotage.FORGETFUL_STORE) {
            throw new UsageException("--sabotage forgetful-store wraps the lab's own store client, which the sample's "
                    + "JVM does not use: with --through sample it must be none or result-cache");
        }
        if (SpringSampleJar.find().isEmpty()) {
            throw new CommandFailure(SpringSampleJar.missing());
        }
    }

    private StoreBackend open(String name) {
        dev.idemlab.lab.infra.ProvisioningOptions provisioning = servers.provisioning(List.of(name));
        String redisUrl = provisioning.effectiveRedisUrl();
        if (name.equals(dev.idemlab.lab.infra.RedisClusterBackend.NAME) && redisUrl != null
                && dev.idemlab.lab.infra.RedisClusterBackend.isClusterUrl(redisUrl)) {
            throw new UsageException("--store redis-cluster: the nemesis plays its faults on the lab's own cluster "
                    + "only; a cluster given by URL is never touched (drop the cluster URL)");
        }
        try {
            return StoreBackends.open(name, provisioning);
        } catch (ProvisioningException unavailable) {
            throw new CommandFailure(name + " could not be had: " + unavailable.getMessage());
        }
    }

    /** {@code none}, {@code result-cache}, {@code forgetful-store}, {@code shared-scope}. */
    static final class SabotageConverter implements ITypeConverter<Sabotage> {
        @Override
        public Sabotage convert(String text) {
            return byId(Sabotage.values(), Sabotage::id, text);
        }
    }

    /** {@code bearer}, {@code anonymous}, {@code named-anonymous}. */
    static final class ClientsConverter implements ITypeConverter<Clients> {
        @Override
        public Clients convert(String text) {
            return byId(Clients.values(), Clients::id, text);
        }
    }

    /** {@code coordinator}, {@code proxy}, {@code http}, {@code webflux}, {@code sample}. */
    static final class ThroughConverter implements ITypeConverter<Through> {
        @Override
        public Through convert(String text) {
            return byId(Through.values(), Through::id, text);
        }
    }

    /** The value whose id is {@code text}, or a conversion error naming every id: "must be a, b or c". */
    private static <T> T byId(T[] values, java.util.function.Function<T, String> id, String text) {
        String wanted = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values).filter(each -> id.apply(each).equals(wanted)).findFirst().orElseThrow(() -> {
            List<String> ids = Arrays.stream(values).map(id).toList();
            return new TypeConversionException("must be " + String.join(", ", ids.subList(0, ids.size() - 1))
                    + " or " + ids.get(ids.size() - 1) + ", got '" + text + "'");
        });
    }
}
