package dev.idemlab.lab.cost;

import dev.idemlab.lab.infra.ServerInfo;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the coordinator's calls cost a Redis server's CPU, by the server's own counters, beside the
 * protocol's floor on the same server, per call. Immutable.
 *
 * @param server the server, with what it promises
 * @param calls how many of each were measured
 * @param firstCallMicros a first call: the reserve script, then the complete script
 * @param floorMicros the floor of a first call: {@code SET NX PX} of a marker, then {@code SET XX PX} of the result
 * @param replayMicros a replay as the coordinator runs it: the reserve script finding a completed record
 * @param lookupMicros what a waiter reads a completed record with: the lookup script (not judged)
 * @param getMicros the floor of a replay: {@code GET}
 * @param firstCallInside the commands a first call's scripts ran, µs per call each (counted inside
 *     {@code firstCallMicros} too); the rest of it is the scripts' own work
 * @param replayInside likewise for a replay
 */
public record ServerTime(ServerInfo server, int calls, double firstCallMicros, double floorMicros,
                         double replayMicros, double lookupMicros, double getMicros,
                         Map<String, Double> firstCallInside, Map<String, Double> replayInside) {

    public ServerTime {
        firstCallInside = Map.copyOf(firstCallInside);
        replayInside = Map.copyOf(replayInside);
    }

    /** The cost issue's target: a first call costs the server at most this many times its two-command floor. */
    public static final double FIRST_CALL_TARGET = 3.0;
    /** The cost issue's target: a replay costs the server at most this many times a {@code GET}. */
    public static final double REPLAY_TARGET = 2.0;

    public double firstCallRatio() {
        return firstCallMicros / floorMicros;
    }

    public double replayRatio() {
        return replayMicros / getMicros;
    }

    public double lookupRatio() {
        return lookupMicros / getMicros;
    }

    public boolean met() {
        return firstCallRatio() <= FIRST_CALL_TARGET && replayRatio() <= REPLAY_TARGET;
    }

    /**
     * Where a phase's server time went: {@code 13.88 µs = commands 6.10 (GET 1.20, SET 2.50, ...) + the
     * scripts' own 7.78}, the commands in {@code order}.
     */
    public static String breakdown(double total, Map<String, Double> inside, List<String> order) {
        double commands = inside.values().stream().mapToDouble(Double::doubleValue).sum();
        StringBuilder each = new StringBuilder();
        for (String command : order) {
            Double usec = inside.get(command);
            if (usec != null) {
                each.append(each.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.2f", command, usec));
            }
        }
        return String.format(Locale.ROOT, "%.2f µs = commands %.2f (%s) + the scripts' own %.2f", total, commands,
                each, total - commands);
    }

    /** {@code <= 3.0x: missed}. */
    static String verdict(double ratio, double target) {
        return String.format(Locale.ROOT, "<= %.1fx: %s", target, ratio <= target ? "met" : "missed");
    }

    public String firstCallVerdict() {
        return verdict(firstCallRatio(), FIRST_CALL_TARGET);
    }

    public String replayVerdict() {
        return verdict(replayRatio(), REPLAY_TARGET);
    }
}
