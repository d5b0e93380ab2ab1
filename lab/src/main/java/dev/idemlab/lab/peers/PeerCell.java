package dev.idemlab.lab.peers;

import dev.idemlab.peers.Experiment;
import dev.idemlab.peers.ExperimentResult;
import dev.idemlab.peers.Verdict;

import java.util.Locale;
import java.util.Objects;

/**
 * One library x experiment: the result, or why the experiment could not run at all (the library did
 * not start, a server could not be had). Immutable.
 *
 * @param experiment which experiment
 * @param result what it showed, or {@code null} when it could not run
 * @param failure why it could not run, or {@code null}
 */
public record PeerCell(Experiment experiment, ExperimentResult result, String failure) {

    public PeerCell {
        Objects.requireNonNull(experiment, "experiment");
        if ((result == null) == (failure == null)) {
            throw new IllegalArgumentException("a cell holds a result or a failure, not both or neither");
        }
    }

    static PeerCell of(ExperimentResult result) {
        return new PeerCell(result.experiment(), result, null);
    }

    static PeerCell failed(Experiment experiment, Throwable error) {
        return new PeerCell(experiment, null, describe(error));
    }

    /** An exception in one line: its class and message. */
    static String describe(Throwable error) {
        String message = error.getMessage() == null ? "" : ": " + error.getMessage().replace('\n', ' ');
        return error.getClass().getSimpleName() + message;
    }

    /** Whether the ledger and the responses showed one charge and consistent answers. */
    public boolean correct() {
        return result != null && result.verdict() == Verdict.ONE_CHARGE_CONSISTENT;
    }

    /** The matrix's words: "one charge, consistent", "double charge", "wrong answer", "not supported", "not run". */
    public String words() {
        return result == null ? "not run" : words(result.verdict());
    }

    /** The words for a verdict. */
    public static String words(Verdict verdict) {
        return switch (verdict) {
            case ONE_CHARGE_CONSISTENT -> "one charge, consistent";
            case DOUBLE_CHARGE -> "double charge";
            case WRONG_ANSWER -> "wrong answer";
            case NOT_SUPPORTED -> "not supported";
        };
    }

    /** The verdict as JSON names it: {@code one-charge-consistent}, ..., or {@code not-run}. */
    public String code() {
        return result == null ? "not-run" : result.verdict().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** One sentence: the judge's reason, or the failure. */
    public String why() {
        return result != null ? result.reason() : "could not run: " + failure;
    }
}
