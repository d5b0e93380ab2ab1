package dev.idemlab.lab.load;

import java.util.Objects;

/**
 * One row of the starter's path measured: one Spring Boot sample on one store, one kind of request, its
 * charge endpoint with the library on and off, each in a fresh JVM of its own. No target: the row says
 * what the starter's layer costs a service built as the sample is. Immutable and thread-safe.
 *
 * @param sample which sample, as the page names it
 * @param store the store's name
 * @param kind the kind of request both runs sent
 * @param guarded the run with the library on: every retry of a key answered from its record
 * @param unguarded the same requests with it off: every one charges
 * @param guardedAnswers what the guarded run's requests got, by kind of answer
 * @param answeredAsKind how many guarded requests were answered as their kind (executed, replayed)
 * @param unguardedExecuted how many unguarded requests ran the charge: all of them, unless the property
 *     failed to turn the library off
 */
public record SampleCostRow(String sample, String store, RequestKind kind, FilterCostRow.Measure guarded,
                            FilterCostRow.Measure unguarded, String guardedAnswers, long answeredAsKind,
                            long unguardedExecuted) {

    public SampleCostRow {
        Objects.requireNonNull(sample, "sample");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(guarded, "guarded");
        Objects.requireNonNull(unguarded, "unguarded");
        Objects.requireNonNull(guardedAnswers, "guardedAnswers");
    }

    /** Guarded throughput over unguarded throughput. */
    public double ratio() {
        return unguarded.throughput() == 0 ? 0 : guarded.throughput() / unguarded.throughput();
    }

    /** The server CPU per request the library adds to the same endpoint without it, in microseconds. */
    public double cpuOverUnguardedMicros() {
        return guarded.cpuMicrosPerRequest() - unguarded.cpuMicrosPerRequest();
    }

    /**
     * Whether at least 99% of the guarded requests were answered as the row's kind, and as many of the
     * unguarded ones ran the charge (the library was really off).
     */
    public boolean clean() {
        return answeredAsKind * 100 >= guarded.latency().count() * 99
                && unguardedExecuted * 100 >= unguarded.latency().count() * 99;
    }

    /** Why the row is not clean, or an empty string. */
    public String unclean() {
        if (answeredAsKind * 100 < guarded.latency().count() * 99) {
            return "on: " + guardedAnswers;
        }
        if (unguardedExecuted * 100 < unguarded.latency().count() * 99) {
            return "off: " + unguardedExecuted + " of " + unguarded.latency().count() + " ran the charge";
        }
        return "";
    }
}
