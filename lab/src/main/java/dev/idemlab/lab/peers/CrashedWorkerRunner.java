package dev.idemlab.lab.peers;

import dev.dbos.transact.DBOS;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.lab.scenario.OrderScenario;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.ScenarioSettings;
import dev.idemlab.lab.scenario.StoreEndpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Runs the crashed-worker table on the lab's PostgreSQL: DBOS at each boundary asked for, with and
 * without the downstream key, killed, and (when asked) paused while another executor recovers; then this
 * project's crash-mid-order modes at the same boundaries. A cell that cannot run becomes a failure line;
 * the others still run. Not thread-safe: one run at a time.
 */
public final class CrashedWorkerRunner {

    /**
     * What to run.
     *
     * @param phases the boundaries, among {@link DbosOrders#PHASES}
     * @param downstreamKeys the downstream-key settings to run DBOS under ({@code false}, {@code true} or both)
     * @param pauses the boundaries where a paused worker is shown (none: empty)
     * @param projectModes this project's modes to run beside DBOS ({@code OrderScenario.modes} names)
     */
    public record Plan(List<String> phases, List<Boolean> downstreamKeys, List<String> pauses,
                       List<String> projectModes) {

        public Plan {
            phases = List.copyOf(phases);
            pauses = List.copyOf(pauses);
            downstreamKeys = List.copyOf(downstreamKeys);
            projectModes = List.copyOf(projectModes);
            if (phases.isEmpty() || downstreamKeys.isEmpty()) {
                throw new IllegalArgumentException("a plan runs at least one boundary under one downstream-key setting");
            }
        }
    }

    private final PostgresBackend postgres;
    private final Consumer<String> progress;

    /**
     * @param postgres the lab's PostgreSQL: DBOS's schemas and the project's orders both live there
     * @param progress told what is about to run
     */
    public CrashedWorkerRunner(PostgresBackend postgres, Consumer<String> progress) {
        this.postgres = Objects.requireNonNull(postgres, "postgres");
        this.progress = Objects.requireNonNull(progress, "progress");
    }

    /** Runs the plan. */
    public CrashedWorkerTable run(Plan plan) throws InterruptedException {
        DbosCrashedWorker worker = new DbosCrashedWorker(new StoreEndpoint("postgres", postgres.jdbcUrl(),
                postgres.user(), postgres.password()));
        List<DbosCrashedWorker.Cell> cells = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (boolean key : plan.downstreamKeys()) {
            for (String phase : plan.phases()) {
                dbos(worker, phase, key, DbosCrashedWorker.Fault.CRASH, cells, failures);
            }
            for (String phase : plan.pauses()) {
                dbos(worker, phase, key, DbosCrashedWorker.Fault.PAUSE, cells, failures);
            }
        }
        List<CrashedWorkerTable.ProjectRow> project = new ArrayList<>();
        for (String mode : plan.projectModes()) {
            for (String phase : plan.phases()) {
                project(mode, phase, project, failures);
            }
        }
        return new CrashedWorkerTable(postgres.server(), DBOS.version(), cells, project, failures);
    }

    private void dbos(DbosCrashedWorker worker, String phase, boolean key, DbosCrashedWorker.Fault fault,
                      List<DbosCrashedWorker.Cell> cells, List<String> failures) throws InterruptedException {
        String what = "dbos " + fault.name().toLowerCase(Locale.ROOT) + " after " + phase + ", downstream key "
                + (key ? "on" : "off");
        progress.accept(what);
        try {
            cells.add(worker.run(phase, key, fault));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            failures.add(what + ": " + PeerCell.describe(e));
        }
    }

    private void project(String mode, String phase, List<CrashedWorkerTable.ProjectRow> rows, List<String> failures)
            throws InterruptedException {
        String name = mode.toLowerCase(Locale.ROOT).replace('_', '-');
        progress.accept(name + " killed after " + phase);
        ScenarioContext context = new ScenarioContext(postgres, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY);
        try {
            ScenarioRun run = new OrderScenario(OrderScenario.Fault.CRASH, mode, phase).run(context, LabPolicy.WAIT);
            String label = run.label().replaceFirst(", killed after .*$", "");
            rows.add(new CrashedWorkerTable.ProjectRow(name, label, phase, (Integer) run.settings().get("orders"),
                    run.charges(), (Integer) run.settings().get("receipts"),
                    run.callers().size() > 1 ? run.callers().get(1).response() : "-"));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            failures.add(name + " killed after " + phase + ": " + PeerCell.describe(e));
        }
    }
}
