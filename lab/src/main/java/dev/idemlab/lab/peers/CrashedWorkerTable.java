package dev.idemlab.lab.peers;

import dev.idemlab.lab.infra.ServerInfo;

import java.util.List;
import java.util.Objects;

/**
 * The crashed-worker table: the order workflow on DBOS, its worker killed (or paused) at each step
 * boundary and recovered by DBOS, beside this project's modes killed at the same boundaries ({@code lab
 * scenario crash-mid-order}). Every figure was read back from the orders table and the ledgers. Immutable.
 *
 * @param postgres the PostgreSQL both ran on
 * @param dbosVersion DBOS Transact's version as it ran
 * @param dbos the DBOS cells, in the order they ran
 * @param project this project's rows at the same boundaries, or empty when they were not asked for
 * @param failures cells that could not run at all, one line each
 */
public record CrashedWorkerTable(ServerInfo postgres, String dbosVersion, List<DbosCrashedWorker.Cell> dbos,
                                 List<ProjectRow> project, List<String> failures) {

    public CrashedWorkerTable {
        Objects.requireNonNull(postgres, "postgres");
        dbos = List.copyOf(dbos);
        project = List.copyOf(project);
        failures = List.copyOf(failures);
    }

    /**
     * One of this project's modes killed at one boundary, as {@code crash-mid-order} read it back.
     *
     * @param mode the mode's name on the command line ({@code downstream-key}, {@code workflow}, ...)
     * @param label what the mode is, in words
     * @param phase the boundary
     * @param orders rows in the orders table
     * @param charges the provider's ledger
     * @param receipts receipts the mailer sent
     * @param answer what the client's retry got
     */
    public record ProjectRow(String mode, String label, String phase, int orders, List<String> charges, int receipts,
                             String answer) {

        public ProjectRow {
            charges = List.copyOf(charges);
        }

        /** One order, one charge, one receipt. */
        public boolean once() {
            return orders == 1 && charges.size() == 1 && receipts == 1;
        }
    }

    /** What DBOS's documentation promises about a crashed workflow and a transactional step. */
    public static List<DocumentedPromise> promises() {
        return PROMISES;
    }

    private static final List<DocumentedPromise> PROMISES = List.of(
            new DocumentedPromise("DBOS documentation, Workflows tutorial",
                    "If a workflow is interrupted for any reason (e.g., an executor restarts or crashes), when your "
                            + "program restarts the workflow automatically resumes execution from the last completed step"),
            new DocumentedPromise("DBOS Transact for Java, JdbcStepFactory.txStep javadoc",
                    "the output is recorded atomically with the database work so the step is exactly-once on success"));
}
