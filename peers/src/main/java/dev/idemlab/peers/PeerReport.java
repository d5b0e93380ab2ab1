package dev.idemlab.peers;


import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.idempotency.testsupport.LocalRedis;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs every experiment on every peer (or the peers named as arguments) and prints the post's tables,
 * the matrix and, with {@code --load}, the load run. Starts its own Redis servers from the bundled
 * binary (and PostgreSQL servers for a peer that keeps its records there) and stops them. The seed of
 * {@code lab peers}.
 *
 * <p>Usage: {@code PeerReport [--load] [peer ...]}
 */
public final class PeerReport {

    private PeerReport() { }

    public static void main(String[] args) {
        // the libraries log their lifecycle at INFO; the tables are the output
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        boolean load = false;
        List<PeerFactory> peers = new ArrayList<>();
        for (String arg : args) {
            if (arg.equals("--load")) {
                load = true;
            } else {
                peers.add(Peers.byName(arg).orElseThrow(() -> new IllegalArgumentException("no peer " + arg
                        + "; peers: " + Peers.all())));
            }
        }
        print(System.out, peers.isEmpty() ? Peers.all() : peers, load);
    }

    /** Runs and prints; every server it starts is stopped before it returns. */
    public static void print(PrintStream out, List<PeerFactory> peers, boolean load) {
        Map<String, Map<Experiment, ExperimentResult>> matrix = new LinkedHashMap<>();
        try (LocalRedis redis = LocalRedis.start();
             LocalPostgres postgres = needsPostgres(peers) ? LocalPostgres.start() : null) {
            out.println("Redis: bundled redis-server on " + redis.uri()
                    + (postgres == null ? "" : "; PostgreSQL: bundled " + postgres));
            for (PeerFactory factory : peers) {
                Map<Experiment, ExperimentResult> row = row(new PeerExperiments(factory, uri(factory, redis, postgres),
                        ExperimentOptions.defaults()), factory.storeKind());
                ExperimentResult any = row.get(Experiment.IN_FLIGHT);
                out.println();
                out.println("## " + any.peer() + " " + any.version() + ": " + any.wiring());
                row.values().forEach(result -> out.println(result.details()));
                matrix.put(any.peer(), row);
            }
            out.println();
            out.println("## matrix");
            out.printf("%-18s %-22s %-22s %-22s %-22s%n", "peer", "in-flight", "key-reuse", "provider-timeout",
                    "store-down");
            matrix.forEach((peer, row) -> out.printf("%-18s %-22s %-22s %-22s %-22s%n", peer,
                    row.get(Experiment.IN_FLIGHT).verdict(), row.get(Experiment.KEY_REUSE).verdict(),
                    row.get(Experiment.PROVIDER_TIMEOUT).verdict(), row.get(Experiment.STORE_DOWN).verdict()));
            if (load) {
                out.println();
                out.println("## load");
                for (PeerFactory factory : peers) {
                    out.println(new PeerLoad(factory, uri(factory, redis, postgres), LoadOptions.defaults()).run().row());
                }
            }
        }
    }

    private static String uri(PeerFactory factory, LocalRedis redis, LocalPostgres postgres) {
        return factory.storeKind() == StoreKind.POSTGRES
                ? Peers.postgresUri(postgres.jdbcUrl(), postgres.user(), postgres.password()) : redis.uri();
    }

    private static boolean needsPostgres(List<PeerFactory> peers) {
        return peers.stream().anyMatch(factory -> factory.storeKind() == StoreKind.POSTGRES);
    }

    /** The four experiments; store down stops a server of the peer's kind started for it alone. */
    private static Map<Experiment, ExperimentResult> row(PeerExperiments experiments, StoreKind store) {
        Map<Experiment, ExperimentResult> row = new EnumMap<>(Experiment.class);
        row.put(Experiment.IN_FLIGHT, experiments.inFlight());
        row.put(Experiment.KEY_REUSE, experiments.keyReuse());
        row.put(Experiment.PROVIDER_TIMEOUT, experiments.providerTimeout());
        if (store == StoreKind.POSTGRES) {
            try (LocalPostgres doomed = LocalPostgres.start()) {
                row.put(Experiment.STORE_DOWN, experiments.storeDown(ServerOutage.of(doomed)));
            }
        } else {
            try (LocalRedis doomed = LocalRedis.start()) {
                row.put(Experiment.STORE_DOWN, experiments.storeDown(ServerOutage.of(doomed)));
            }
        }
        return row;
    }
}
