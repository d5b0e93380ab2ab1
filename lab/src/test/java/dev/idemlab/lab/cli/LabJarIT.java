package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The built {@code lab.jar}, run as a user runs it: a separate process, its output and exit code. */
class LabJarIT {

    private record Result(int exitCode, String out, String err) { }

    private static Result lab(String... args) throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("lab.jar", "target/lab.jar"));
        assertThat(jar).exists();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("lab-out", ".txt");
        Path err = Files.createTempFile("lab-err", ".txt");
        try {
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("lab " + String.join(" ", args) + " did not finish");
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    void theRunPolicyDoubleChargesOnTheDefaultStore() throws Exception {
        // The retry lands well inside the first call, and well before it stores: robust on a noisy machine.
        Result run = lab("scenario", "in-flight", "--policy", "run", "--latency-ms", "800", "--retry-at-ms", "200");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("store: redis").contains("responses=[ch_1, ch_1]")
                .contains("charges made=[ch_1, ch_2]");
    }

    @Test
    void storeDownFailsOpenOnARealStoppedRedis() throws Exception {
        Result open = lab("scenario", "store-down");
        assertThat(open.exitCode()).as(open.err()).isZero();
        assertThat(open.out()).contains("the action ran anyway: ch_1").contains("storage errors=1 (fail open)")
                .contains("stopped a second private redis-server");
        Result closed = lab("scenario", "store-down", "--on-store-failure", "closed");
        assertThat(closed.out()).contains("IdempotencyStoreUnavailableException").contains("charges made=0");
    }

    @Test
    void aUsageErrorIsOneLineAndExitTwo() throws Exception {
        Result run = lab("scenario", "in-flight", "--key", "k".repeat(256));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("key must be 1 to 255 Unicode code points").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void thePrivateServerIsStoppedWhenTheRunEnds() throws Exception {
        Result run = lab("scenario", "key-reuse", "--latency-ms", "1");
        java.util.regex.Matcher address = java.util.regex.Pattern.compile("at 127\\.0\\.0\\.1:(\\d+)").matcher(run.out());
        assertThat(address.find()).as(run.out()).isTrue();
        int port = Integer.parseInt(address.group(1));
        assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close())
                .as("nothing listens on the lab's private port %d any more", port)
                .isInstanceOf(java.net.ConnectException.class);
    }
}
