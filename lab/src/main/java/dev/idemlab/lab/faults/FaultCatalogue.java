package dev.idemlab.lab.faults;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.ProvisioningException;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

/**
 * The fault catalogue as runs: every case on every store it applies to, each injected for real and
 * read off the provider's ledger. Cases of the coordinator alone run once, on memory. Not thread-safe:
 * one run at a time, since the cases start and pause servers.
 */
public final class FaultCatalogue {

    private FaultCatalogue() { }

    /** Every case, in catalogue order. */
    static List<FaultCase> cases() {
        return Stream.of(ConcurrencyFaults.all(), ServerFaults.all(), NetworkFaults.all(), InputFaults.all(),
                        ShownElsewhere.all())
                .flatMap(List::stream).sorted(Comparator.comparingInt(FaultCase::number)).toList();
    }

    /** How many steps {@link #run} will take on {@code stores}, for a progress line. */
    public static int steps(List<String> stores) {
        int steps = 0;
        for (FaultCase fault : cases()) {
            steps += fault.stores().equals(Case.ANY) ? 1
                    : (int) fault.stores().stream().filter(stores::contains).count();
        }
        return steps;
    }

    /** The stores some case of the catalogue runs on, in the lab's order. */
    public static List<String> stores() {
        return StoreBackends.NAMES.stream().filter(store -> cases().stream().anyMatch(fault ->
                fault.stores().contains(store) || (fault.stores().equals(Case.ANY) && store.equals("memory")))).toList();
    }

    /**
     * Runs every case on {@code stores}. {@code progress} hears of each step before ({@code null}
     * outcome) and after it. A store whose server cannot be had is reported as one row saying so.
     */
    public static List<FaultRow> run(List<String> stores, ProvisioningOptions provisioning,
                                     BiConsumer<String, FaultRow> progress) {
        return run(stores, provisioning, progress, new ArrayList<>());
    }

    /** Like {@link #run(List, ProvisioningOptions, BiConsumer)}, adding each server used to {@code servers}. */
    public static List<FaultRow> run(List<String> stores, ProvisioningOptions provisioning,
                                     BiConsumer<String, FaultRow> progress, List<String> servers) {
        List<FaultRow> rows = new ArrayList<>();
        for (String store : StoreBackends.NAMES) {
            boolean wanted = stores.contains(store);
            List<FaultCase> here = cases().stream().filter(fault -> fault.stores().contains(store)
                    || (fault.stores().equals(Case.ANY) && store.equals("memory") && wanted)).toList();
            if (!wanted || here.isEmpty()) {
                continue;
            }
            try (StoreBackend backend = StoreBackends.open(store, provisioning)) {
                servers.add(backend.server().describe());
                for (FaultCase fault : here) {
                    String where = fault.stores().equals(Case.ANY) ? "any" : store;
                    progress.accept("fault " + fault.number() + " on " + where, null);
                    FaultRow row = runOne(fault, backend, where);
                    rows.add(row);
                    progress.accept("fault " + fault.number() + " on " + where, row);
                }
            } catch (ProvisioningException e) {
                rows.add(new FaultRow(0, "store could not be had", store, "-", "-", e.getMessage(),
                        FaultRow.Verdict.VIOLATED));
            }
        }
        rows.sort(Comparator.comparingInt(FaultRow::number).thenComparing(FaultRow::store));
        return rows;
    }

    private static FaultRow runOne(FaultCase fault, StoreBackend backend, String where) {
        FaultCase.Outcome outcome;
        try (FaultRig rig = new FaultRig(backend)) {
            outcome = fault.run(rig);
        } catch (Exception | AssertionError e) {
            outcome = new FaultCase.Outcome("the run failed: " + e, FaultRow.Verdict.VIOLATED);
        }
        return new FaultRow(fault.number(), fault.fault(), where, fault.injection(), fault.invariant(),
                outcome.observed(), outcome.verdict());
    }

    /** The rows as a Markdown table, one per fault and store. */
    public static String markdown(List<FaultRow> rows) {
        StringBuilder out = new StringBuilder("| # | fault | store | injected by | invariant | observed | verdict |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (FaultRow row : rows) {
            out.append("| ").append(row.number()).append(" | ").append(cell(row.fault())).append(" | ")
                    .append(row.store()).append(" | ").append(cell(row.injection())).append(" | ")
                    .append(cell(row.invariant())).append(" | ").append(cell(row.observed())).append(" | ")
                    .append(row.verdict().word()).append(" |\n");
        }
        return out.toString();
    }

    /** One line per row, for a terminal. */
    public static String table(List<FaultRow> rows) {
        StringBuilder out = new StringBuilder();
        for (FaultRow row : rows) {
            out.append(String.format("%-16s #%-2d %-9s %s%n    %s%n", row.verdict().word(), row.number(), row.store(),
                    row.fault(), row.observed()));
        }
        long violated = rows.stream().filter(row -> row.verdict() == FaultRow.Verdict.VIOLATED).count();
        out.append(String.format("faults: %d rows, %d violated%n", rows.size(), violated));
        return out.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
