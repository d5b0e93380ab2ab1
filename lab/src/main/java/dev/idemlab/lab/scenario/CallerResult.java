package dev.idemlab.lab.scenario;

/**
 * What one caller of a scenario sent and got.
 *
 * @param name the caller: A, B, ... or a step's label
 * @param startMs when it called, in ms since the scenario started
 * @param endMs when it got its answer
 * @param response the charge id it got, or the simple class name of the exception it got
 * @param outcome how the coordinator produced it: executed, replayed, waited, ... or the error
 * @param chargesAfter how many charges the provider's ledger held when this caller got its answer
 * @param storageErrorsAfter how many storage errors the run's coordinator had counted when this caller got its
 *     answer, or {@link #NOT_COUNTED} where the scenario does not count them per caller
 */
public record CallerResult(String name, long startMs, long endMs, String response, String outcome, int chargesAfter,
                           long storageErrorsAfter) {

    /** A caller whose scenario counts storage errors for the run only. */
    public static final long NOT_COUNTED = -1;

    /** A caller of a scenario that counts storage errors for the run only. */
    public CallerResult(String name, long startMs, long endMs, String response, String outcome, int chargesAfter) {
        this(name, startMs, endMs, response, outcome, chargesAfter, NOT_COUNTED);
    }
}
