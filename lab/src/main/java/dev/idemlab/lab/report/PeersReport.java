package dev.idemlab.lab.report;

import dev.idemlab.lab.peers.LibraryRow;
import dev.idemlab.lab.peers.PeerMatrix;
import dev.idemlab.peers.ExperimentOptions;
import dev.idemlab.peers.LoadOptions;
import dev.idemlab.peers.LoadReport;

import java.util.List;
import java.util.Locale;

/** {@code lab peers} in the three forms the scenarios take: table, JSON, Markdown with timelines. */
public final class PeersReport {

    private PeersReport() { }

    /** Renders the matrix and everything behind it in {@code format}. */
    public static String render(ReportFormat format, PeerMatrix matrix) {
        return switch (format) {
            case TABLE -> PeersTable.render(matrix);
            case JSON -> PeersJson.render(matrix);
            case MARKDOWN -> PeersMarkdown.render(matrix);
        };
    }

    /** The experiments' timing in one line. */
    static String timing(ExperimentOptions options) {
        return "provider " + options.latency().toMillis() + " ms per charge; in-flight: caller A at 0 ms, "
                + (options.callers() - 1) + (options.callers() == 2 ? " identical caller" : " identical callers") + " at " + options.retryAt().toMillis()
                + " ms once A is inside the provider";
    }

    /** The load run's shape in one line. */
    static String loadShape(LoadOptions load) {
        return load.callers() + " identical callers released together on each of " + load.repetitions()
                + " keys, " + load.latency().toMillis() + " ms charges; duplicates are ledger entries beyond one per key";
    }

    /** The gate's verdict in one line. */
    static String gateLine(PeerMatrix matrix) {
        List<String> failures = matrix.gateFailures();
        boolean ran = matrix.rows().stream().anyMatch(LibraryRow::gated);
        if (!ran) {
            return "gate: this project's wait and raise rows were not run";
        }
        return failures.isEmpty()
                ? "gate: this project's wait and raise rows are one charge, consistent in every experiment run"
                : "gate FAILED: " + String.join("; ", failures);
    }

    /** Duplicates per 100,000 requests, as the tables print them. */
    static String per100k(LoadReport load) {
        return String.format(Locale.ROOT, "%,.0f", load.duplicatesPer100k());
    }

    /** The responses of a load run in words. */
    static String loadResponses(LoadReport load) {
        return load.consistent() + " the key's charge, " + load.otherCharge() + " another charge, " + load.nulls()
                + " null, " + load.inProgressErrors() + " in-progress error, " + load.otherErrors() + " other error, "
                + load.otherObjects() + " not a charge";
    }
}
