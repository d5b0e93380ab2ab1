package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.scenario.HolderMain;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.http.HttpPaymentProvider;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A member of the consumer nemesis's group in a JVM of its own, so that the nemesis can kill it
 * ({@code SIGKILL}) or stop it ({@code SIGCONT} later) past its session and poll interval. It opens the run's
 * store from its environment, charges the run's provider over HTTP, and prints its {@link ConsumerEvent}
 * lines on standard output. A line {@code stop} on standard input (or standard input closed: the parent
 * gone) ends it cleanly, leaving the group.
 *
 * <p>Arguments: {@code NAME BOOTSTRAP_SERVERS TOPIC GROUP PREFIX LEASE_MS SESSION_TIMEOUT_MS
 * MAX_POLL_INTERVAL_MS PROVIDER_URL SABOTAGE}. Not an entry point for people: the lab starts it.
 */
public final class ConsumerMemberMain {

    /** What the child prints once it polls: the parent waits for it before it counts the child as a member. */
    static final String READY = "ready";

    private ConsumerMemberMain() { }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        ConsumerMember.Settings settings = new ConsumerMember.Settings(args[1], args[2], args[3],
                Duration.ofMillis(Long.parseLong(args[5])), Integer.parseInt(args[6]), Integer.parseInt(args[7]),
                Sabotage.valueOf(args[9]));
        try (IdempotencyStore store = HolderMain.openPatiently(StoreEndpoint.fromEnvironment(), args[4])) {
            store.lookup(ConsumerMember.OPERATION + ":warm-up");
            ConsumerMember member = new ConsumerMember(args[0], settings, store,
                    HttpPaymentProvider.connect(URI.create(args[8])), line -> {
                        synchronized (out) {
                            out.println(line);
                        }
                    });
            Thread stopper = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                    String line;
                    do {
                        line = in.readLine();
                    } while (line != null && !line.equals("stop"));
                } catch (java.io.IOException ignored) {
                    // the parent is gone: stop as if told
                }
                member.stop();
            }, "stop-reader");
            stopper.setDaemon(true);
            stopper.start();
            out.println(READY);
            member.run();
        }
        System.exit(0);
    }
}
