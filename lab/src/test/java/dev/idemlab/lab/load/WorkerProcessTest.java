package dev.idemlab.lab.load;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A load worker that dies is named, with its exit code and its last words, and is gone afterwards. */
class WorkerProcessTest {

    @Test
    void aWorkerThatExitsNonZeroIsNamedWithItsExitCodeAndLastWords(@TempDir Path dir) throws Exception {
        WorkerProcess worker = WorkerProcess.start(3, List.of("not", "the", "arguments"), dir.resolve("worker.log"),
                line -> { });
        try (worker) {
            assertThatThrownBy(() -> worker.awaitReady(System.nanoTime() + 60_000_000_000L))
                    .isInstanceOf(WorkerFailure.class)
                    .hasMessageStartingWith("load worker 3 (pid ")
                    .hasMessageContaining("exited with 1 before it was ready: ")
                    .hasMessageNotContaining("\tat ")
                    .satisfies(e -> assertThat(((WorkerFailure) e).worker()).isEqualTo(3));
        }
    }
}
