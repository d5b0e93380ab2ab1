package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.provider.http.HttpPaymentProvider;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The holder of an order placement ({@link OrderPlacement}) in a process of its own, so that it can
 * be killed with SIGKILL or paused with SIGSTOP at a step boundary. It opens the store its parent names
 * in its environment, places the order once, and reports on standard output, one line each:
 * {@code at PHASE} when it reaches the boundary it was told to stop at (it then reads a line from
 * standard input before it goes on: the parent kills or pauses it there), and {@code got ANSWER} with
 * what the call returned, or the exception's class name.
 *
 * <p>Arguments: {@code MODE PREFIX KEY ORDER_REF LEASE_MS PROVIDER_URL MAILER_URL STOP_AT}, MODE an
 * {@link OrderPlacement.Mode} name and STOP_AT one of {@link OrderPlacement#PHASES}. Not an entry point
 * for people: the lab starts it.
 */
public final class OrderHolderMain {

    static final String AT = "at ";

    private OrderHolderMain() { }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OrderPlacement.Mode mode = OrderPlacement.Mode.parse(args[0]);
        String prefix = args[1];
        String key = args[2];
        String orderRef = args[3];
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        String stopAt = args[7];
        StoreEndpoint endpoint = StoreEndpoint.fromEnvironment();
        try (PostgresIdempotencyStore store = (PostgresIdempotencyStore) HolderMain.openPatiently(endpoint, prefix)) {
            // A cold JVM on a loaded machine: its first call must not be the reserve, whose patience it could
            // miss, so that what the run shows is the fault staged, never a reserve that failed open.
            store.lookup(OrderPlacement.OPERATION + ":" + key);
            IdempotencyCoordinator coordinator = OrderPlacement.coordinator(mode, store, lease);
            OrderPlacement placement = new OrderPlacement(mode, store, endpoint,
                    HttpPaymentProvider.connect(URI.create(args[5])), HttpPaymentProvider.connect(URI.create(args[6])),
                    phase -> {
                        if (phase.equals(stopAt)) {
                            out.println(AT + phase);
                            awaitLine(in);
                        }
                    });
            String got;
            try {
                got = placement.place(coordinator, key, orderRef);
            } catch (Exception e) {
                got = e.getClass().getSimpleName();
            }
            out.println(HolderMain.GOT + got);
        }
        System.exit(0);
    }

    private static void awaitLine(BufferedReader in) {
        try {
            in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
