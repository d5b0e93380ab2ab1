package dev.idemlab.peers;


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
 * binary and stops them. The seed of {@code lab peers}.
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
        try (LocalRedis redis = LocalRedis.start()) {
            out.println("Redis: bundled redis-server on " + redis.uri());
            for (PeerFactory factory : peers) {
                PeerExperiments experiments = new PeerExperiments(factory, redis.uri(), ExperimentOptions.defaults());
                Map<Experiment, ExperimentResult> row = new EnumMap<>(Experiment.class);
                row.put(Experiment.IN_FLIGHT, experiments.inFlight());
                row.put(Experiment.KEY_REUSE, experiments.keyReuse());
                row.put(Experiment.PROVIDER_TIMEOUT, experiments.providerTimeout());
                try (LocalRedis doomed = LocalRedis.start()) {
                    row.put(Experiment.STORE_DOWN, experiments.storeDown(RedisOutage.of(doomed)));
                }
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
                    out.println(new PeerLoad(factory, redis.uri(), LoadOptions.defaults()).run().row());
                }
            }
        }
    }
}
