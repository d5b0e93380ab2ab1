package dev.idemlab.lab.peers;

import dev.idemlab.lab.scenario.ChildHolder;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.peers.DbosSystemDatabase;
import dev.idemlab.peers.Peers;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One cell of the crashed-worker table on DBOS: the order workflow ({@link DbosOrders}) started by a
 * worker in a child JVM ({@link DbosWorkerMain}), which is hit at a step boundary; then a second
 * executor with the same executor id launches in this JVM, and DBOS's own recovery (at launch, of the
 * workflows its executor id left pending) resumes the workflow, while the client retries with the same
 * workflow id and waits for the answer. The provider and the mailer deduplicate on a key when one is
 * passed, as real ones do. Every figure is read back afterwards: the orders table, the provider's
 * ledger, the mailer's, and the workflow's status in DBOS. The child is killed and waited for in every
 * case; the DBOS schema is dropped.
 *
 * <p>Two faults: {@link Fault#CRASH} kills the worker with SIGKILL; {@link Fault#PAUSE} stops it with
 * SIGSTOP, lets the other executor recover and finish the workflow, then lets the paused worker go on,
 * to show whether its step still lands (DBOS has no lease or fence to stop it).
 *
 * <p>Not thread-safe: one run at a time.
 */
public final class DbosCrashedWorker {

    private static final Duration LATENCY = Duration.ofMillis(50);
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    /** What happens to the worker at the boundary. */
    public enum Fault {
        CRASH("killed with SIGKILL"),
        PAUSE("stopped with SIGSTOP while another executor recovered the workflow, then continued");

        final String how;

        Fault(String how) {
            this.how = how;
        }
    }

    /**
     * What one run left behind.
     *
     * @param phase the step boundary where the worker was hit
     * @param downstreamKey whether the remote steps passed a key for the provider to deduplicate on
     * @param fault what was done to the worker
     * @param orders rows in the orders table for the order
     * @param paidWith the charge each of those rows is marked paid with, in row order ({@code -} for none)
     * @param charges the provider's ledger
     * @param receipts the mailer's ledger
     * @param answer what the client's retry got (the recovered workflow's answer)
     * @param workerAnswer what the paused worker got once it went on, or {@code -} for a killed one
     * @param status the workflow's status in DBOS afterwards
     */
    public record Cell(String phase, boolean downstreamKey, Fault fault, int orders, List<String> paidWith,
                       List<String> charges,
                       List<String> receipts, String answer, String workerAnswer, String status) {

        public Cell {
            paidWith = List.copyOf(paidWith);
            charges = List.copyOf(charges);
            receipts = List.copyOf(receipts);
        }

        /** One order, one charge and one receipt: what the client asked for, once. */
        public boolean once() {
            return orders == 1 && charges.size() == 1 && receipts.size() == 1;
        }
    }

    private final StoreEndpoint postgres;

    /** @param postgres the PostgreSQL the worker and the recovering executor share (kind {@code postgres}) */
    public DbosCrashedWorker(StoreEndpoint postgres) {
        this.postgres = Objects.requireNonNull(postgres, "postgres");
    }

    /** Runs one cell. */
    public Cell run(String phase, boolean downstreamKey, Fault fault) throws Exception {
        if (!DbosOrders.PHASES.contains(phase)) {
            throw new IllegalArgumentException("a step boundary is one of " + DbosOrders.PHASES + ", not " + phase);
        }
        DbosSystemDatabase database = DbosSystemDatabase.fresh(
                Peers.postgresUri(postgres.url(), postgres.user(), postgres.password()), "dbos_orders_");
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(LATENCY).deduplicateOnKey(true).build();
        FakePaymentProvider mailer = FakePaymentProvider.builder().latency(LATENCY).deduplicateOnKey(true).build();
        String workflowId = "order-" + UUID.randomUUID() + "-place";
        String orderRef = "order-" + UUID.randomUUID();
        try (ProviderService providerService = ProviderService.start(provider);
             ProviderService mailerService = ProviderService.start(mailer);
             ChildHolder worker = ChildHolder.start(postgres, DbosWorkerMain.class, database.schema(), workflowId,
                     orderRef, providerService.uri().toString(), mailerService.uri().toString(),
                     downstreamKey ? "on" : "off", phase)) {
            worker.await(DbosWorkerMain.AT);
            return recover(worker, new Run(database, phase, downstreamKey, fault, workflowId, orderRef), provider,
                    mailer);
        } finally {
            database.drop();
        }
    }

    /** One run's settings and names. */
    private record Run(DbosSystemDatabase database, String phase, boolean downstreamKey, Fault fault, String workflowId,
                       String orderRef) { }

    /**
     * Hits the worker waiting at its boundary, launches the recovering executor, retries as the client,
     * lets a paused worker go on and reads everything back.
     */
    private static Cell recover(ChildHolder worker, Run run, FakePaymentProvider provider, FakePaymentProvider mailer)
            throws Exception {
        if (run.fault() == Fault.CRASH) {
            worker.kill();
        } else {
            worker.signal("STOP");
        }
        try (DbosOrders recovering = DbosOrders.launch(run.database(), provider, mailer, run.downstreamKey(),
                after -> { })) {
            String answer = retry(recovering, run.workflowId(), run.orderRef());
            String workerAnswer = "-";
            if (run.fault() == Fault.PAUSE) {
                worker.proceed();
                worker.signal("CONT");
                workerAnswer = worker.await(DbosWorkerMain.GOT);
                worker.awaitExit();
            }
            return new Cell(run.phase(), run.downstreamKey(), run.fault(), recovering.orders(run.orderRef()),
                    recovering.paidWith(run.orderRef()), provider.chargeIds(), mailer.chargeIds(), answer, workerAnswer,
                    recovering.status(run.workflowId()));
        }
    }

    /** The client's retry with the same workflow id, while DBOS's recovery runs the workflow. */
    private static String retry(DbosOrders recovering, String workflowId, String orderRef) throws InterruptedException {
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> {
            try {
                return recovering.place(workflowId, orderRef);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        try {
            return call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            return "no answer within " + PATIENCE.toSeconds() + " s";
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                    ? c.getCause() : e.getCause();
            return cause.getClass().getSimpleName();
        }
    }
}
