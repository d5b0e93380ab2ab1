package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.http.HttpPaymentProvider;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A holder in a process of its own, for the failures a thread cannot stage: a JVM killed with
 * SIGKILL after the provider charged, or one stopped with SIGSTOP past its lease. It connects to the
 * store its parent names in its environment ({@link StoreEndpoint}) and to the provider service
 * over HTTP, charges once through the library's coordinator (heartbeat on), and reports on standard
 * output, one line each:
 *
 * <ul>
 *   <li>{@code event\tFROM\tTO\tREPLY\tMESSAGE}: its side of the timeline (store and provider calls);</li>
 *   <li>{@code reserved FENCE}: inside the action, before the charge; with {@code --gate} it then reads a
 *       line from standard input before charging (the parent pauses it there);</li>
 *   <li>{@code charged ID}: the provider answered; with {@code --hang-after-charge} it then blocks
 *       before completing the record (the parent kills it there);</li>
 *   <li>{@code got RESPONSE OUTCOME}: what the call returned, or the exception's class name.</li>
 * </ul>
 *
 * <p>Arguments: {@code PREFIX KEY LEASE_MS PROVIDER_URL DOWNSTREAM [--gate] [--hang-after-charge]
 * [--fail-instead-of-charge] [--operation OP] [--order ORDER_ID] [--amount N] [--before-charge-ms N]
 * [--after-charge-ms N]}, where DOWNSTREAM is a {@link ChargeClient.Downstream} name; operation, order and
 * amount default to the scenarios' own, and the action may spend a while before and after its charge (the
 * nemesis's long actions). With {@code --fail-instead-of-charge} the action, once its time before the
 * charge is spent, fails as a provider call that timed out does, and the coordinator releases the key:
 * after a pause past the lease, with the token of a reservation it no longer holds. Not an entry point
 * for people: the lab starts it.
 */
public final class HolderMain {

    static final String CALLER = "A (child JVM)";
    public static final String RESERVED = "reserved ";
    public static final String CHARGED = "charged ";
    public static final String GOT = "got ";
    static final String EVENT = "event\t";

    private HolderMain() { }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String prefix = args[0];
        String key = args[1];
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        URI providerUri = URI.create(args[3]);
        ChargeClient.Downstream downstream = ChargeClient.Downstream.valueOf(args[4]);
        boolean gate = java.util.Arrays.asList(args).contains("--gate");
        boolean hang = java.util.Arrays.asList(args).contains("--hang-after-charge");
        boolean failInstead = java.util.Arrays.asList(args).contains("--fail-instead-of-charge");
        String operation = option(args, "--operation", ChargeClient.OPERATION);
        String orderId = option(args, "--order", ScenarioSettings.ORDER_ID);
        long amount = Long.parseLong(option(args, "--amount", Long.toString(ScenarioSettings.AMOUNT)));
        long beforeCharge = Long.parseLong(option(args, "--before-charge-ms", "0"));
        long afterCharge = Long.parseLong(option(args, "--after-charge-ms", "0"));

        Timeline timeline = new Timeline(event -> out.println(EVENT + event.from() + "\t" + event.to() + "\t"
                + event.reply() + "\t" + event.message().replace('\t', ' ').replace('\n', ' ')));
        HttpPaymentProvider http = HttpPaymentProvider.connect(providerUri);
        dev.idemlab.provider.PaymentProvider provider = new dev.idemlab.provider.PaymentProvider() {
            @Override
            public dev.idemlab.provider.Charge charge(dev.idemlab.provider.ChargeRequest request) {
                if (request.fence() != null) {
                    out.println(RESERVED + request.fence());
                } else {
                    out.println(RESERVED + "without fence");
                }
                if (gate) {
                    awaitLine(in);
                }
                sleep(beforeCharge);
                if (failInstead) {
                    throw new dev.idemlab.provider.ProviderTimeoutException(request.orderId());
                }
                dev.idemlab.provider.Charge charge = http.charge(request);
                out.println(CHARGED + charge.id());
                sleep(afterCharge);
                if (hang) {
                    awaitLine(in); // killed here: charged, not completed
                }
                return charge;
            }

            @Override
            public java.util.List<dev.idemlab.provider.Charge> ledger() {
                return http.ledger();
            }

            @Override
            public java.util.Optional<dev.idemlab.provider.Charge> findCharge(String id) {
                return http.findCharge(id);
            }
        };
        try (IdempotencyStore store = new TimelineStore(openPatiently(StoreEndpoint.fromEnvironment(), prefix), timeline)) {
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.custom().policy(InFlightPolicy.WAIT).lease(lease).build()).build();
            CallerResult[] result = new CallerResult[1];
            Thread caller = new Thread(() -> result[0] = new ChargeClient(coordinator, provider, timeline, downstream)
                    .charge(CALLER, operation, key, orderId, amount), CALLER);
            caller.start();
            caller.join();
            out.println(GOT + result[0].response() + " " + result[0].outcome());
        }
        System.exit(0);
    }

    /**
     * A cold JVM on a loaded machine can miss the store's first connect timeout: try for a while,
     * since the parent waits for this holder anyway.
     */
    public static IdempotencyStore openPatiently(StoreEndpoint endpoint, String prefix) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return endpoint.open(prefix);
            } catch (dev.idemlab.idempotency.spi.IdempotencyStoreException notYet) {
                if (System.nanoTime() - deadline >= 0) {
                    throw notYet;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200));
            }
        }
    }

    /** The value after {@code name} in {@code args}, or {@code otherwise}. */
    private static String option(String[] args, String name, String otherwise) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return otherwise;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in the action", e);
        }
    }

    private static void awaitLine(BufferedReader in) {
        try {
            in.readLine();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
