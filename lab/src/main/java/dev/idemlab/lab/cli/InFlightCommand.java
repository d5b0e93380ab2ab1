package dev.idemlab.lab.cli;

import dev.idemlab.lab.http.SpringSampleJar;
import dev.idemlab.lab.scenario.CallThrough;
import dev.idemlab.lab.scenario.HttpInFlightScenario;
import dev.idemlab.lab.scenario.InFlightScenario;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.StripeInFlightScenario;
import dev.idemlab.lab.scenario.ProviderChoice;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;

/** {@code lab scenario in-flight}: the post's first table. */
@Command(name = "in-flight", mixinStandardHelpOptions = true,
        description = "Caller A charges; callers B..N send the identical request with the same key while A is "
                + "still inside the provider. Under run (a result cache) every caller gets ch_1 and the card is "
                + "charged twice; under wait and raise it is charged once. With --client stripe-java nobody "
                + "scripts the retry: the Stripe Java SDK times out and retries on its own.")
final class InFlightCommand extends AbstractScenarioCommand {

    static final String LAB_CLIENT = "lab";
    static final String LAB_TARGET = "lab";
    static final String SPRING_SAMPLE = "spring-sample";
    static final String STRIPE_JAVA = "stripe-java";
    static final long MAX_READ_TIMEOUT_MS = 60_000;

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "In-flight policy: run, wait, raise or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;

    @Option(names = "--client", paramLabel = "CLIENT", defaultValue = LAB_CLIENT,
            description = "Who sends the requests: lab (the lab's own callers, A then B..N at --retry-at-ms) or "
                    + "stripe-java (an unmodified Stripe Java SDK against the demo server's POST /v1/charges over "
                    + "HTTP, its read timeout shorter than the provider and network retries on, so that its own "
                    + "retry is the duplicate; the provider then takes 3000 ms unless --latency-ms is given). "
                    + "Default: ${DEFAULT-VALUE}.")
    String client;

    @Option(names = "--read-timeout-ms", paramLabel = "MS",
            description = "With --client stripe-java: the SDK's read timeout, 1 to " + MAX_READ_TIMEOUT_MS
                    + "; with the SDK's least sleep before a retry (500 ms) it must be shorter than the provider's "
                    + "latency. Default: 1000.")
    Long readTimeoutMs;

    @Option(names = "--target", paramLabel = "TARGET", defaultValue = LAB_TARGET,
            description = "What serves the race: lab (the lab's own coordinator, or with --transport http its demo "
                    + "server) or spring-sample (the Spring Boot sample service, examples/spring-boot-payments, started "
                    + "from its jar in a child JVM on 127.0.0.1, on --store redis or postgres, charging the provider's "
                    + "HTTP service; over HTTP: run is its result-cache mode, wait and raise the starter's reservation). "
                    + "Default: ${DEFAULT-VALUE}.")
    String target;

    @Mixin
    RaceOptions raceOptions;

    @Mixin
    TransportOption transport;

    @Mixin
    CallThroughOption callThrough;

    @Override
    CallThrough callThrough() {
        CallThrough how = callThrough.choice();
        if (how == CallThrough.PROXY && SPRING_SAMPLE.equals(target)) {
            // Said before the sample's jar is looked for: the rule holds whether it was built or not.
            throw new UsageException("--call-through proxy: --target " + SPRING_SAMPLE + " runs the holder in a child "
                    + "JVM (the Spring Boot sample, whose @Idempotent beans run on the starter's advice), which the "
                    + "lab's callers only send HTTP requests; leave --call-through out");
        }
        return how;
    }

    @Override
    RaceOptions race() {
        return raceOptions;
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        return List.of(new ScenarioRunner.Plan(scenario(), policy.policies()));
    }

    @Override
    void checkStore(String store) {
        if (springSample() && !store.equals("redis") && !store.equals("postgres")) {
            throw new UsageException("--target " + SPRING_SAMPLE + " runs the sample in a child JVM on a single Redis "
                    + "or a PostgreSQL server: --store must be redis or postgres, got '" + store + "'");
        }
    }

    /** Whether the Spring sample serves the race, every option that cannot go with it refused. */
    private boolean springSample() {
        if (!LAB_TARGET.equals(target) && !SPRING_SAMPLE.equals(target)) {
            throw new UsageException("--target must be " + LAB_TARGET + " or " + SPRING_SAMPLE + ", got '" + target + "'");
        }
        if (!SPRING_SAMPLE.equals(target)) {
            return false;
        }
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (!LAB_CLIENT.equals(client)) {
            throw new UsageException("--target " + SPRING_SAMPLE + " is raced by the lab's own callers: leave --client out");
        }
        if (given.hasMatchedOption("--transport") && !transport.http()) {
            throw new UsageException("--target " + SPRING_SAMPLE + " is reached over HTTP: leave --transport out, or give http");
        }
        if (given.hasMatchedOption("--provider") && options.provider.choice() != ProviderChoice.HTTP) {
            throw new UsageException("--target " + SPRING_SAMPLE + " charges the provider's HTTP service: leave --provider "
                    + "out, or give http");
        }
        return true;
    }

    private Scenario scenario() {
        if (springSample()) {
            if (SpringSampleJar.find().isEmpty()) {
                throw new IllegalStateException(SpringSampleJar.missing());
            }
            return HttpInFlightScenario.throughSpringSample();
        }
        boolean stripe = switch (client) {
            case LAB_CLIENT -> false;
            case STRIPE_JAVA -> true;
            default -> throw new UsageException("--client must be " + LAB_CLIENT + " or " + STRIPE_JAVA + ", got '"
                    + client + "'");
        };
        if (!stripe) {
            if (readTimeoutMs != null) {
                throw new UsageException("--read-timeout-ms is the SDK's: it goes with --client " + STRIPE_JAVA);
            }
            return transport.http() ? new HttpInFlightScenario() : new InFlightScenario();
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--transport") && !transport.http()) {
            throw new UsageException("--client " + STRIPE_JAVA + " talks to the demo server over HTTP: "
                    + "leave --transport out, or give http");
        }
        long readTimeout = readTimeoutMs == null ? StripeInFlightScenario.DEFAULT_READ_TIMEOUT.toMillis() : readTimeoutMs;
        Bounds.check("--read-timeout-ms", readTimeout, 1, MAX_READ_TIMEOUT_MS);
        Duration latency = spec.commandLine().getParseResult().hasMatchedOption("--latency-ms")
                ? Duration.ofMillis(options.latencyMs) : StripeInFlightScenario.DEFAULT_LATENCY;
        String broken = StripeInFlightScenario.brokenTimingRule(latency, Duration.ofMillis(readTimeout));
        if (broken != null) {
            throw new UsageException("--read-timeout-ms " + readTimeout + " with --latency-ms " + latency.toMillis()
                    + ": " + broken);
        }
        return new StripeInFlightScenario(latency, Duration.ofMillis(readTimeout));
    }
}
