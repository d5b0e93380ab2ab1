package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.lab.scenario.HolderMain;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.http.HttpPaymentProvider;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * A holder of the nemesis's order workflow ({@link OrderBook#workflow}) in a process of its own, so that
 * it can be killed with SIGKILL or paused with SIGSTOP at a step boundary: the same steps, the same
 * orders table and the same provider (over HTTP) as the run's in-process callers, whose retries then
 * resume what it left. It fails closed and waits, as every caller of local effects does. It reports on
 * standard output, one line each: {@code reserved FENCE} as its first step begins; {@code charged ID}
 * once the provider answered; {@code at BOUNDARY} at the boundary it was told to stop at, where it then
 * reads a line from standard input before it goes on (the parent kills or pauses it there); and
 * {@code got CHARGE OUTCOME ORDER}, or {@code got EXCEPTION error}.
 *
 * <p>Arguments: {@code PREFIX KEY LEASE_MS PROVIDER_URL STOP_AT}, STOP_AT one of
 * {@link OrderBook#BOUNDARIES}; the store is named in its environment. Not an entry point for people:
 * the nemesis starts it.
 */
public final class WorkflowHolderMain {

    static final String AT = "at ";

    private WorkflowHolderMain() { }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String prefix = args[0];
        int key = Integer.parseInt(args[1]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        HttpPaymentProvider provider = HttpPaymentProvider.connect(URI.create(args[3]));
        String stopAt = args[4];
        try (PostgresIdempotencyStore store = (PostgresIdempotencyStore) HolderMain.openPatiently(
                StoreEndpoint.fromEnvironment(), prefix)) {
            // A cold JVM on a loaded machine: its first store call must not be the reserve, whose patience
            // it could miss, so that what the run shows is the fault staged.
            store.lookup(LoadKeys.OPERATION + ":" + LoadKeys.key(key));
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.custom().policy(InFlightPolicy.WAIT).lease(lease)
                            .storeFailureMode(StoreFailureMode.FAIL_CLOSED).build()).build();
            Workflow workflow = OrderBook.workflow(key, () -> LoadKeys.amount(key), steps(key, provider, stopAt, out, in));
            String got;
            try {
                IdempotentResult<Workflow.Progress> result = coordinator.call(
                        CoordinatorPath.callOf(key, LoadKeys.amount(key)), ResultCodec.json(Workflow.Progress.class),
                        LocalEffects.of(store).workflow(workflow));
                got = result.value().outputs().get("charge_created") + " "
                        + result.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-') + " "
                        + result.value().outputs().get("order_created");
            } catch (Exception e) {
                got = e.getClass().getSimpleName() + " error";
            }
            out.println(HolderMain.GOT + got);
        }
        System.exit(0);
    }

    /** The child's side of the steps: its lines, its charge over HTTP, its stop at {@code stopAt}. */
    private static OrderBook.Steps steps(int key, HttpPaymentProvider provider, String stopAt, PrintStream out,
                                         BufferedReader in) {
        return new OrderBook.Steps() {
            private boolean began;

            @Override
            public void began(IdempotencyContext context) {
                if (!began) {
                    began = true;
                    out.println(HolderMain.RESERVED + (context == null ? "without fence" : context.fence()));
                }
            }

            @Override
            public String charge(String downstreamKey) {
                String id = provider.charge(new ChargeRequest(LoadKeys.orderId(key), LoadKeys.amount(key),
                        downstreamKey, null)).id();
                out.println(HolderMain.CHARGED + id);
                return id;
            }

            @Override
            public void at(String boundary) {
                if (boundary.equals(stopAt)) {
                    out.println(AT + boundary);
                    awaitLine(in);
                }
            }
        };
    }

    private static void awaitLine(BufferedReader in) {
        try {
            in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
