package dev.idemlab.lab.nemesis;

/**
 * A nemesis run: its history and verdict, and, when duplicates were explained, the same schedule's
 * second pass with the provider deduplicating on the key. Immutable.
 *
 * @param downstreamPass the second pass, or {@code null} when none was needed
 */
public record NemesisResult(NemesisHistory history, NemesisVerdict verdict, NemesisResult downstreamPass) {

    NemesisResult withDownstreamPass(NemesisResult pass) {
        return new NemesisResult(history, verdict, pass);
    }

    /** Whether this run and its second pass, if any, found no violation. */
    public boolean passed() {
        return verdict.passed() && (downstreamPass == null || downstreamPass.passed());
    }
}
