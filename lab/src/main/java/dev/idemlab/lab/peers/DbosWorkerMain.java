package dev.idemlab.lab.peers;

import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.peers.DbosSystemDatabase;
import dev.idemlab.peers.Peers;
import dev.idemlab.provider.http.HttpPaymentProvider;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A DBOS worker in a process of its own, so that it can be killed with SIGKILL or paused with SIGSTOP
 * at a step boundary ({@link DbosOrders}). It launches a DBOS executor on the PostgreSQL its parent names
 * in its environment, starts the order workflow once and reports on standard output, one line each:
 * {@code at PHASE} when it reaches the boundary it was told to stop at (it then reads a line from
 * standard input before it goes on: the parent kills or pauses it there), and {@code got ANSWER} with
 * what the workflow returned, or the exception's class name.
 *
 * <p>Arguments: {@code SCHEMA WORKFLOW_ID ORDER_REF PROVIDER_URL MAILER_URL DOWNSTREAM_KEY STOP_AT}, the
 * last two {@code on|off} and one of {@link DbosOrders#PHASES}. Not an entry point for people: the lab
 * starts it.
 */
public final class DbosWorkerMain {

    static final String AT = "at ";
    static final String GOT = "got ";

    private DbosWorkerMain() { }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StoreEndpoint endpoint = StoreEndpoint.fromEnvironment();
        DbosSystemDatabase database = DbosSystemDatabase.on(
                Peers.postgresUri(endpoint.url(), endpoint.user(), endpoint.password()), args[0]);
        String stopAt = args[6];
        try (DbosOrders orders = DbosOrders.launch(database, HttpPaymentProvider.connect(URI.create(args[3])),
                HttpPaymentProvider.connect(URI.create(args[4])), args[5].equals("on"), phase -> {
                    if (phase.equals(stopAt)) {
                        out.println(AT + phase);
                        awaitLine(in);
                    }
                })) {
            String got;
            try {
                got = orders.place(args[1], args[2]);
            } catch (Exception e) {
                got = e.getClass().getSimpleName();
            }
            out.println(GOT + got);
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
