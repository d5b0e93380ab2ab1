package dev.idemlab.lab.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code lab faults} refuses a store it has no case for, alone or among others, rather than pass on 0 rows. */
class FaultsCommandTest {

    @ParameterizedTest(name = "--stores {0} is refused")
    @ValueSource(strings = {"redis-cluster", "memory,redis-cluster"})
    void aStoreWithoutCasesIsAUsageErrorNotAnEmptyPass(String stores) {
        LabRun run = LabRun.of("faults", "--stores", stores);

        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains("the fault catalogue has no case for redis-cluster")
                .contains("it runs on memory, redis, postgres").doesNotContain("Exception");
        assertThat(run.out()).doesNotContain("0 rows");
    }
}
