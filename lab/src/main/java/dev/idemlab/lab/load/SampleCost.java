package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.http.SpringSample;
import dev.idemlab.lab.http.SpringSampleJar;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The starter's path measured as the filter is ({@link FilterCost}): each Spring Boot sample in a fresh JVM
 * of its own, its charge endpoint with the library on and, with one property, off, on the same store,
 * driven by the same clients, for first calls and replays. The servlet sample's charge is an
 * {@code @Idempotent} method (off: {@code idempotency.aspect.enabled=false}, the plain method); the WebFlux
 * sample's route is behind the WebFlux filter (off: {@code idempotency.web.enabled=false}). The servlet
 * sample charges the fake provider over HTTP (a service in the lab's JVM, whose CPU is not counted) and
 * writes its orders table; the WebFlux sample's provider is in its own process, and it runs on the
 * in-memory store only (its jar carries no Redis or PostgreSQL module). Not thread-safe.
 */
public final class SampleCost {

    /** The kinds measured: a sample has no hook to hold a charge, so no in-flight conflicts. */
    static final List<RequestKind> KINDS = List.of(RequestKind.FIRST_CALL, RequestKind.REPLAY);

    /** The two samples, each with the argument that turns its idempotency off. */
    public enum Sample {
        /** {@code examples/spring-boot-payments}: Spring MVC, the charge an {@code @Idempotent} method. */
        SERVLET("servlet sample, @Idempotent", SpringSampleJar.SERVLET, "--idempotency.aspect.enabled=false",
                List.of("memory", "redis", "postgres")),
        /** {@code examples/spring-boot-payments-webflux}: the route behind the WebFlux filter. */
        WEBFLUX("WebFlux sample, filter", SpringSampleJar.WEBFLUX, "--idempotency.web.enabled=false",
                List.of("memory"));

        private final String label;
        private final SpringSampleJar jar;
        private final String off;
        private final List<String> stores;

        Sample(String label, SpringSampleJar jar, String off, List<String> stores) {
            this.label = label;
            this.jar = jar;
            this.off = off;
            this.stores = stores;
        }

        /** How the page names it. */
        public String label() {
            return label;
        }
    }

    private final LoadSettings settings;
    private final LoadProgress progress;
    private final ServerMeter meter;
    private final List<Sample> samples;
    private final List<String> notes = new ArrayList<>();

    /**
     * @param settings clients, provider latency and duration of each run, as for the filter
     * @param progress where a line per run goes
     * @param samples the samples to measure, each on the stores it runs on
     */
    public SampleCost(LoadSettings settings, LoadProgress progress, List<Sample> samples) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.meter = new ServerMeter(settings, progress);
        this.samples = List.copyOf(samples);
    }

    /**
     * Every sample that runs on {@code backend}, each kind, on and off; a sample whose jar is not built
     * is left out with a note ({@link #notes}).
     *
     * @throws InterruptedException if interrupted while a run is under way
     */
    public List<SampleCostRow> run(StoreBackend backend) throws InterruptedException {
        List<SampleCostRow> rows = new ArrayList<>();
        for (Sample sample : samples) {
            if (!sample.stores.contains(backend.name())) {
                continue;
            }
            Optional<Path> jar = sample.jar.jar();
            if (jar.isEmpty()) {
                note(sample.label + " not measured: " + sample.jar.missingMessage());
                continue;
            }
            for (RequestKind kind : KINDS) {
                ChargeHistory guarded = new ChargeHistory();
                try {
                    FilterCostRow.Measure on = measure(sample, jar.get(), backend, kind, true, guarded);
                    ChargeHistory unguarded = new ChargeHistory();
                    FilterCostRow.Measure off = measure(sample, jar.get(), backend, kind, false, unguarded);
                    rows.add(new SampleCostRow(sample.label, backend.name(), kind, on, off,
                            FilterCost.answers(guarded), kind == RequestKind.FIRST_CALL
                                    ? guarded.answers(Outcome.EXECUTED) : guarded.answers(Outcome.REPLAYED),
                            unguarded.answers(Outcome.EXECUTED)));
                } catch (SampleNotStarted e) {
                    note(sample.label + " on " + backend.name() + ", " + kind.label() + ": not measured: "
                            + e.getMessage());
                }
            }
        }
        return rows;
    }

    /** Why a sample was left out, one line each. */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    private void note(String line) {
        notes.add(line);
        progress.finished(line);
    }

    /** One fresh sample JVM: started, warmed up, primed for replays when guarded, measured, stopped. */
    private FilterCostRow.Measure measure(Sample sample, Path jar, StoreBackend backend, RequestKind kind,
                                          boolean guarded, ChargeHistory history) throws InterruptedException {
        String label = String.format(Locale.ROOT, "%s/%s, %s %s", backend.name(), kind.label(), sample.label,
                guarded ? "on" : "off");
        Optional<StoreEndpoint> endpoint = StoreEndpoint.of(backend);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(settings.providerLatency()).build();
        try (ProviderService service = ProviderService.start(provider);
             SpringSample server = start(jar, arguments(sample, backend, guarded, service.uri()),
                     endpoint.map(StoreEndpoint::springEnvironment).orElse(Map.of()))) {
            URI uri = server.uri();
            meter.warmUpWithFirstCalls(uri);
            if (guarded && kind == RequestKind.REPLAY) {
                ServerMeter.answerPrimedKeys(uri);
            }
            meter.warmUpWith(uri, kind);
            return meter.measure(label, uri, server.pid(), kind, history);
        } catch (IOException e) {
            throw new UncheckedIOException(label + ": the sample could not be started: " + e.getMessage(), e);
        }
    }

    /**
     * The sample, started once more if its first start fails (a JVM that exits during its start on a
     * starved machine), so that one bad start costs a row, never the page.
     *
     * @throws SampleNotStarted when the second start fails too, with both reasons
     */
    private static SpringSample start(Path jar, List<String> arguments, Map<String, String> environment)
            throws IOException, InterruptedException {
        try {
            return SpringSample.start(jar, List.of(FilterCost.SERVER_HEAP), arguments, environment);
        } catch (IllegalStateException first) {
            try {
                return SpringSample.start(jar, List.of(FilterCost.SERVER_HEAP), arguments, environment);
            } catch (IllegalStateException second) {
                throw new SampleNotStarted("it did not start twice: " + first.getMessage() + "; then: "
                        + second.getMessage());
            }
        }
    }

    /** A sample that would not start: its row is left out with the reason. */
    private static final class SampleNotStarted extends RuntimeException {

        private static final long serialVersionUID = 1L;

        SampleNotStarted(String message) {
            super(message);
        }
    }

    /** The store, a key prefix of the run's own, the provider (servlet) or its latency (WebFlux), on or off. */
    private List<String> arguments(Sample sample, StoreBackend backend, boolean guarded, URI provider) {
        List<String> arguments = new ArrayList<>();
        arguments.add("--idempotency.store=" + backend.name());
        arguments.add("--idempotency.key-prefix=sample-cost-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":");
        arguments.add("--idempotency.policy=raise");
        arguments.add("--logging.level.root=WARN");
        if (sample == Sample.SERVLET) {
            arguments.add("--payments.provider-url=" + provider);
        } else {
            arguments.add("--payments.provider-latency=" + settings.providerLatency().toMillis() + "ms");
        }
        if (!guarded) {
            arguments.add(sample.off);
        }
        return arguments;
    }
}
