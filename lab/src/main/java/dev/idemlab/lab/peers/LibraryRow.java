package dev.idemlab.lab.peers;

import dev.idemlab.peers.Experiment;
import dev.idemlab.peers.LoadReport;
import dev.idemlab.peers.StoreKind;

import java.util.List;
import java.util.Objects;

/**
 * One library's row of the matrix: every experiment, and the load run when one was asked for.
 * Immutable.
 *
 * @param name the library's name in the lab ({@code --library})
 * @param version the library's version as it ran, read from its jar
 * @param wiring how it is wired
 * @param store where it keeps its records
 * @param cells one per experiment, in {@link Experiment} order
 * @param load the load run, or {@code null} when none was asked for or it could not run
 * @param loadFailure why the load run could not run, or {@code null}
 */
public record LibraryRow(String name, String version, String wiring, StoreKind store, List<PeerCell> cells,
        LoadReport load, String loadFailure) {

    public LibraryRow {
        Objects.requireNonNull(name, "name");
        cells = List.copyOf(cells);
    }

    /** The cell of {@code experiment}. */
    public PeerCell cell(Experiment experiment) {
        return cells.stream().filter(c -> c.experiment() == experiment).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(name + " did not run " + experiment.id()));
    }

    /** Whether this row is this project's WAIT or RAISE, which must be correct everywhere. */
    public boolean gated() {
        return LabPeers.GATED.contains(name);
    }

    /** Whether the load run, if any, charged no key twice and told no caller anything the ledger contradicts. */
    public boolean loadCorrect() {
        if (loadFailure != null) {
            return false;
        }
        return load == null || (load.duplicateCharges() == 0 && load.keysNeverCharged() == 0 && load.otherCharge() == 0
                && load.nulls() == 0 && load.otherErrors() == 0 && load.otherObjects() == 0);
    }
}
