package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.load.raw.MemoryRawStore;
import dev.idemlab.lab.load.raw.PostgresRawStore;
import dev.idemlab.lab.load.raw.RawStore;
import dev.idemlab.lab.load.raw.RedisRawStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.HolderMain;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.FakePaymentProvider;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The server of one {@code lab load --filter-cost} run in a JVM of its own, so that the CPU time the
 * parent reads from this process is the server's alone, not the clients' nor their HTTP client's:
 * the demo payment API with the Idempotency-Key filter, with the store's raw writes by hand around the
 * charge ({@link DemoServer#startRawWrites}), or bare. Not an entry point for people: the lab starts it.
 *
 * <p>Arguments: the {@link Handler} and the provider's latency in nanoseconds. Environment: the store,
 * as {@link StoreEndpoint} writes it, of kind {@code memory} for the in-process store (then in this
 * process). Standard output: {@code listening URI} once it serves, {@code held} when asked to wait for
 * held charges and they are all inside the provider. Standard input, one command a line: {@code hold},
 * {@code await-held N}, {@code release}, {@code stop} (or the end of input), after which it stops the
 * server, closes the store and exits 0.
 */
public final class FilterCostServerMain {

    /** The three servers a row compares. */
    public enum Handler {
        /** Through the Idempotency-Key filter, on the library's store. */
        FILTERED("filtered"),
        /** The store's raw writes by hand around the charge, and a raw read for a taken key. */
        RAW_WRITES("raw-writes"),
        /** No idempotency at all: every request charges. */
        BARE("bare");

        private final String label;

        Handler(String label) {
            this.label = label;
        }

        /** {@code filtered}, {@code raw-writes}, {@code bare}. */
        public String label() {
            return label;
        }
    }

    static final String LISTENING = "listening ";
    static final String HELD = "held";
    static final String HOLD = "hold";
    static final String AWAIT_HELD = "await-held ";
    static final String RELEASE = "release";
    static final String STOP = "stop";
    /** The kind of endpoint that names the in-process store: nothing to connect to. */
    static final String MEMORY = "memory";

    private FilterCostServerMain() { }

    /** Arguments: the handler's name and the provider's latency in nanoseconds. */
    public static void main(String[] args) throws Exception {
        Handler handler = Handler.valueOf(args[0]);
        Duration latency = Duration.ofNanos(Long.parseLong(args[1]));
        StoreEndpoint endpoint = StoreEndpoint.fromEnvironment();
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        HeldProvider provider = new HeldProvider(FakePaymentProvider.builder().latency(latency).build());
        String prefix = "filter-cost:" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ':';
        boolean filtered = handler == Handler.FILTERED;
        try (IdempotencyStore store = filtered && !endpoint.kind().equals(MEMORY)
                    ? HolderMain.openPatiently(endpoint, prefix) : new InMemoryIdempotencyStore();
             RawStore raw = handler == Handler.RAW_WRITES ? openRaw(endpoint) : null;
             DemoServer server = raw != null ? DemoServer.startRawWrites(raw, store, provider)
                     : DemoServer.start(store, LabPolicy.RAISE, IdempotencyConfig.ofDefaults(), provider, n -> { }, 0,
                             filtered)) {
            out.println(LISTENING + server.uri());
            serve(provider, out);
        }
        System.exit(0);
    }

    private static RawStore openRaw(StoreEndpoint endpoint) {
        return switch (endpoint.kind()) {
            case MEMORY -> new MemoryRawStore();
            case "redis" -> new RedisRawStore(endpoint.url());
            case "postgres" -> new PostgresRawStore(endpoint.url(), endpoint.user(), endpoint.password());
            default -> throw new IllegalArgumentException("no raw client for a store of kind " + endpoint.kind());
        };
    }

    /** Follows the parent's commands until it says stop or goes away. */
    private static void serve(HeldProvider provider, PrintStream out) throws IOException, InterruptedException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null && !line.equals(STOP); line = in.readLine()) {
                if (line.equals(HOLD)) {
                    provider.hold();
                } else if (line.startsWith(AWAIT_HELD)) {
                    int charges = Integer.parseInt(line.substring(AWAIT_HELD.length()));
                    out.println(provider.awaitHolding(charges, Duration.ofSeconds(30)) ? HELD
                            : String.format(Locale.ROOT, "not held: fewer than %d charges reached the provider", charges));
                } else if (line.equals(RELEASE)) {
                    provider.release();
                }
            }
        } finally {
            provider.release();
        }
    }
}
