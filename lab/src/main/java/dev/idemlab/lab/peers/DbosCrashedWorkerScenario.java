package dev.idemlab.lab.peers;

import dev.dbos.transact.DBOS;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CallerResult;
import dev.idemlab.lab.scenario.CannotStageException;
import dev.idemlab.lab.scenario.Expectations;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.StoreEndpoint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One cell of the crashed-worker table on DBOS Transact ({@link DbosCrashedWorker}) as a row of
 * {@code lab check}: the worker killed (or paused while another executor recovers the workflow) right
 * after a step boundary, with or without the downstream key. It reports what the orders table and both
 * ledgers hold; the gate's expectations say what DBOS must show. Runs on the store's own PostgreSQL,
 * where DBOS's system database lives in a schema of its own, dropped after the cell.
 */
public final class DbosCrashedWorkerScenario implements Scenario {

    public static final String NAME = Expectations.DBOS_CRASHED_WORKER;

    private final String phase;
    private final boolean downstreamKey;
    private final DbosCrashedWorker.Fault fault;

    public DbosCrashedWorkerScenario(String phase, boolean downstreamKey, DbosCrashedWorker.Fault fault) {
        if (!DbosOrders.PHASES.contains(phase)) {
            throw new IllegalArgumentException("a step boundary is one of " + DbosOrders.PHASES + ", not " + phase);
        }
        this.phase = phase;
        this.downstreamKey = downstreamKey;
        this.fault = Objects.requireNonNull(fault, "fault");
    }

    /**
     * The cells {@code lab check} runs: the worker killed after each boundary, without and with the
     * downstream key, and paused after the charge (the published double charge of a paused worker).
     */
    public static List<DbosCrashedWorkerScenario> gated() {
        List<DbosCrashedWorkerScenario> cells = new ArrayList<>();
        for (boolean key : List.of(false, true)) {
            for (String phase : DbosOrders.PHASES) {
                cells.add(new DbosCrashedWorkerScenario(phase, key, DbosCrashedWorker.Fault.CRASH));
            }
            cells.add(new DbosCrashedWorkerScenario("charge_created", key, DbosCrashedWorker.Fault.PAUSE));
        }
        return List.copyOf(cells);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "DBOS Transact's order workflow, its worker killed or paused after a step, recovered by DBOS";
    }

    /** The row's name: {@code DBOS 1.1.0-m6, downstream key off, killed after charge_created}. */
    String label() {
        return "DBOS " + DBOS.version() + ", downstream key " + (downstreamKey ? "on" : "off") + ", "
                + (fault == DbosCrashedWorker.Fault.CRASH ? "killed" : "paused while recovered elsewhere") + " after " + phase;
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        if (!(context.backend() instanceof PostgresBackend)) {
            throw new CannotStageException("DBOS keeps its workflows in PostgreSQL, and this run's store is "
                    + context.backend().server().describe() + "; use --store postgres");
        }
        StoreEndpoint postgres = StoreEndpoint.of(context.backend()).orElseThrow();
        DbosCrashedWorker.Cell cell;
        try {
            cell = new DbosCrashedWorker(postgres).run(phase, downstreamKey, fault);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(label() + " could not run: " + PeerCell.describe(e), e);
        }
        Map<String, Object> reported = new LinkedHashMap<>();
        reported.put("dbos", "DBOS Transact " + DBOS.version());
        reported.put("phase", phase);
        reported.put("downstreamKey", downstreamKey);
        // a row of the failure lab: the gate's own expectations, not the exactly-once promise of a policy
        reported.put("mitigated", downstreamKey);
        reported.put("fault", fault.name().toLowerCase(Locale.ROOT));
        reported.put("orders", cell.orders());
        reported.put("receipts", cell.receipts().size());
        reported.put("status", cell.status());
        List<CallerResult> callers = List.of(
                new CallerResult("worker", 0, 0, fault == DbosCrashedWorker.Fault.CRASH ? "killed after " + phase
                        : cell.workerAnswer(), fault.name().toLowerCase(Locale.ROOT), 0),
                new CallerResult("retry", 0, 0, cell.answer(), "recovered", cell.charges().size()));
        String note = cell.orders() + (cell.orders() == 1 ? " order" : " orders") + " (paid with " + cell.paidWith()
                + "), receipts " + cell.receipts() + ", DBOS status " + cell.status();
        return new ScenarioRun(NAME, "wait", label(), context.backend().server(), reported, callers, cell.charges(),
                0, note, List.of());
    }
}
