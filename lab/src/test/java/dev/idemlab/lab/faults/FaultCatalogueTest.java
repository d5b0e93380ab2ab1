package dev.idemlab.lab.faults;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault catalogue as tests: one per fault and store, named after the invariant it guards, each
 * fault injected for real on memory, Redis and PostgreSQL and judged from the provider's ledger.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultCatalogueTest {

    private List<FaultRow> rows;

    @BeforeAll
    void runTheCatalogue() {
        rows = FaultCatalogue.run(StoreBackends.NAMES, ProvisioningOptions.defaults(), (step, row) -> { });
    }

    @TestFactory
    Stream<DynamicTest> everyFaultOnEveryStoreWhereItApplies() {
        return rows.stream().map(row -> DynamicTest.dynamicTest(
                "#" + row.number() + " " + row.fault() + " on " + row.store() + ": " + row.invariant(),
                () -> assertThat(row.verdict()).as(row.observed()).isNotEqualTo(FaultRow.Verdict.VIOLATED)));
    }

    @Test
    void everyCaseOfTheCatalogueHasARowAndEveryRowSaysWhatItSaw() {
        assertThat(rows.stream().map(FaultRow::number).distinct()).hasSize(38);
        assertThat(rows).allSatisfy(row -> assertThat(row.observed()).isNotBlank());
        assertThat(rows.stream().filter(row -> row.verdict() == FaultRow.Verdict.HOLDS).map(FaultRow::store).distinct())
                .contains("memory", "redis", "postgres", "any");
    }
}
