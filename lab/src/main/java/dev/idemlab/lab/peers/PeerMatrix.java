package dev.idemlab.lab.peers;

import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.peers.ExperimentOptions;
import dev.idemlab.peers.LoadOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@code lab peers} found: the Redis it ran on (and the PostgreSQL, when a library keeps its records
 * there), how the store went down, the timing, and one row per library. Immutable.
 *
 * @param redis the lab's Redis: version, origin, address
 * @param postgres the lab's PostgreSQL: version, origin, address, durability; {@code null} when no library
 *                 needed one
 * @param storeDown how the store-down experiment made its outage
 * @param options the experiments' timing
 * @param load the load run's shape, or {@code null} when there was none
 * @param rows one per library, in the order they ran
 */
public record PeerMatrix(ServerInfo redis, ServerInfo postgres, String storeDown, ExperimentOptions options, LoadOptions load,
        List<LibraryRow> rows) {

    public PeerMatrix {
        Objects.requireNonNull(redis, "redis");
        Objects.requireNonNull(options, "options");
        rows = List.copyOf(rows);
    }

    /**
     * Why this project's WAIT or RAISE row is not correct, one line per cell (empty when both are
     * correct in every experiment, and under load when it ran). Rows not run are not judged.
     */
    public List<String> gateFailures() {
        List<String> failures = new ArrayList<>();
        for (LibraryRow row : rows) {
            if (!row.gated()) {
                continue;
            }
            for (PeerCell cell : row.cells()) {
                if (!cell.correct()) {
                    failures.add(row.name() + " " + cell.experiment().id() + ": " + cell.words() + " (" + cell.why() + ")");
                }
            }
            if (!row.loadCorrect()) {
                failures.add(row.name() + " load: " + (row.loadFailure() != null ? "could not run: " + row.loadFailure()
                        : row.load().duplicateCharges() + " duplicate charges, responses the ledger contradicts"));
            }
        }
        return failures;
    }

    /** What the PostgreSQL server promises about what it holds; empty when the run had none. */
    public String postgresPersistence() {
        if (postgres == null) {
            return "";
        }
        return (postgres.origin() == dev.idemlab.lab.infra.Origin.URL ? "given by URL, " : "a private instance, ")
                + (postgres.durability() == null ? "durability not read" : postgres.durability()) + "; every DBOS system database lives in a schema of its own, dropped when "
                + "the library closes";
    }

    /** What the Redis server promises about the records it holds. */
    public String persistence() {
        return switch (redis.origin()) {
            case URL -> "given by URL: its persistence and eviction are its own settings";
            default -> "a private instance started without persistence (--save \"\" --appendonly no): "
                    + "every record is lost when it stops";
        };
    }
}
