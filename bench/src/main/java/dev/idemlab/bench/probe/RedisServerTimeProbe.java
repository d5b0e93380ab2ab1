package dev.idemlab.bench.probe;

import dev.idemlab.bench.Requests;
import dev.idemlab.bench.StoreFixture;
import dev.idemlab.bench.StoreKind;
import dev.idemlab.lab.load.raw.RawStore;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.lab.infra.RedisBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The probe behind {@code results/bench/MISSED.md}'s Redis figures: where a first call's and a
 * replay's time goes, by the server's own accounting. Through the store and the coordinator, as the
 * benchmarks call them, and beside the raw {@code SET NX PX} and {@code GET} of their baselines, it
 * runs a phase of calls with the server's counters reset ({@code CONFIG RESETSTAT}), then reads
 * {@code INFO commandstats}: the microseconds the server spent in each command, the commands a script
 * ran inside it counted both in the script's figure and on their own line. The phases take turns
 * within each round, so every one sees the same minutes of a shared machine.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.idemlab.bench.probe.RedisServerTimeProbe [rounds] [calls]
 * java -Didemlab.bench.durable=true -cp bench/target/benchmarks.jar dev.idemlab.bench.probe.RedisServerTimeProbe
 * }</pre>
 * Defaults: 11 rounds of 5,000 calls per phase, one thread. Prints, per phase, the server's µs per call
 * (median round) with what the scripts ran inside, and the client's µs per call (median and best round).
 */
public final class RedisServerTimeProbe {

    private RedisServerTimeProbe() { }

    /**
     * One phase: {@code calls} calls on keys under one prefix, each key first given to {@code seed}
     * (outside the counters) when it is not null.
     */
    private record Phase(String name, Consumer<String> call, Consumer<String> seed) { }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 11;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        try (StoreFixture fixture = StoreFixture.open(StoreKind.REDIS, InFlightPolicy.WAIT)) {
            RedisClient client = RedisClient.create(((RedisBackend) fixture.backend()).uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                run(fixture, connection.sync(), rounds, calls);
            } finally {
                client.shutdown();
            }
        }
    }

    private static void run(StoreFixture fixture, RedisCommands<String, String> admin, int rounds, int calls) {
        IdempotencyCoordinator coordinator = fixture.coordinator();
        RawStore raw = fixture.raw();
        Consumer<String> firstCall = key -> coordinator.execute(
                IdempotentCall.of(Requests.OPERATION, key, Requests.FINGERPRINT), Requests.CODEC, Requests.NO_OP);
        Consumer<String> replay = key -> coordinator.execute(
                IdempotentCall.of(Requests.OPERATION, key, Requests.FINGERPRINT), Requests.CODEC, Requests.MUST_NOT_RUN);
        List<Phase> phases = List.of(
                new Phase("first call (the store)", firstCall, null),
                new Phase("replay (the store)", replay, firstCall),
                new Phase("raw SET NX PX", raw::plainWrite, null),
                new Phase("raw GET", raw::plainRead, raw::seed));
        System.out.printf(Locale.ROOT, "%s, %d rounds of %d calls per phase, 1 thread%n",
                fixture.backend().server().describeWithDurability(), rounds, calls);
        Map<String, List<Double>> clientMicros = new LinkedHashMap<>();
        Map<String, Map<String, List<Double>>> serverMicros = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (Phase phase : phases) {
                String prefix = "probe-" + round + "-" + phase.name().hashCode() + "-";
                if (phase.seed() != null) {
                    for (int i = 0; i < calls; i++) {
                        phase.seed().accept(prefix + i);
                    }
                }
                admin.configResetstat();
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    phase.call().accept(prefix + i);
                }
                long elapsed = System.nanoTime() - start;
                Map<String, Long> usec = commandMicros(admin.info("commandstats"));
                clientMicros.computeIfAbsent(phase.name(), k -> new ArrayList<>()).add(elapsed / 1000.0 / calls);
                Map<String, List<Double>> byCommand = serverMicros.computeIfAbsent(phase.name(), k -> new TreeMap<>());
                usec.forEach((command, micros) -> byCommand.computeIfAbsent(command, k -> new ArrayList<>())
                        .add(micros / (double) calls));
            }
            System.err.printf(Locale.ROOT, "round %d of %d%n", round + 1, rounds);
        }
        report(clientMicros, serverMicros);
    }

    /** {@code INFO commandstats} as µs by command; the probe's own CONFIG and INFO left out. */
    static Map<String, Long> commandMicros(String info) {
        Map<String, Long> micros = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (command.equals("config") || command.equals("info")) {
                continue;
            }
            for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                if (field.startsWith("usec=")) {
                    micros.put(command, Long.parseLong(field.substring("usec=".length())));
                }
            }
        }
        return micros;
    }

    private static void report(Map<String, List<Double>> clientMicros,
                               Map<String, Map<String, List<Double>>> serverMicros) {
        System.out.println("µs per call: client median (best round); server median round, by command");
        clientMicros.forEach((phase, list) -> {
            System.out.printf(Locale.ROOT, "  %-24s client %7.1f (%.1f)%n", phase, median(list), best(list));
            Map<String, List<Double>> byCommand = serverMicros.get(phase);
            // A script's commands are counted inside its EVALSHA too: the EVALSHA is the phase's figure.
            String top = byCommand.containsKey("evalsha") ? "evalsha" : byCommand.containsKey("set") ? "set" : "get";
            System.out.printf(Locale.ROOT, "  %-24s server %7.2f in %s%n", "", median(byCommand.getOrDefault(top,
                    List.of(0.0))), top.toUpperCase(Locale.ROOT));
            if (top.equals("evalsha")) {
                byCommand.forEach((command, micros) -> {
                    if (!command.equals("evalsha")) {
                        System.out.printf(Locale.ROOT, "  %-24s   of which %-8s %5.2f%n", "",
                                command.toUpperCase(Locale.ROOT), median(micros));
                    }
                });
            }
        });
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static double best(List<Double> values) {
        return Collections.min(values);
    }
}
