package dev.idemlab.lab.cost;

import dev.idemlab.lab.infra.ServerInfo;

import java.util.Locale;

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
 */
public record ServerTime(ServerInfo server, int calls, double firstCallMicros, double floorMicros,
                         double replayMicros, double lookupMicros, double getMicros) {

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
