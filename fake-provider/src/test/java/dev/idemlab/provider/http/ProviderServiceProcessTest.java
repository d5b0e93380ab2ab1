package dev.idemlab.provider.http;

import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.ProviderKeyReuseException;
import dev.idemlab.provider.StaleFenceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The service as its own process, started the way the lab starts it. */
class ProviderServiceProcessTest {

    private static final long PATIENCE_S = 60;

    @TempDir
    Path dir;

    @Test
    void a_child_process_announces_its_address_charges_and_stops_on_sigterm() throws Exception {
        Path stderr = dir.resolve("provider.err");
        Process child = start(stderr, "--latency-ms", "0", "--dedupe", "--fence");
        try (BufferedReader stdout = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = CompletableFuture.supplyAsync(() -> readLine(stdout)).get(PATIENCE_S, TimeUnit.SECONDS);
            assertThat(line).as("the ready line; stderr: %s", Files.readString(stderr))
                    .matches("provider listening on http://127\\.0\\.0\\.1:\\d+");
            HttpPaymentProvider provider = HttpPaymentProvider.connect(URI.create(line.substring(ProviderServiceMain.LISTENING.length())));

            Charge charge = provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2));
            assertThat(provider.charge("order-42", 10, "k1")).isEqualTo(charge);
            assertThatThrownBy(() -> provider.charge("order-42", 5, "k1")).isInstanceOf(ProviderKeyReuseException.class);
            assertThatThrownBy(() -> provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(1)))
                    .isInstanceOf(StaleFenceException.class);
            assertThat(provider.ledger()).containsExactly(new Charge("ch_1", "order-42", 10, "k1"));

            child.destroy();
            assertThat(child.waitFor(PATIENCE_S, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            assertThat(child.exitValue()).as("the exit code of a JVM stopped by SIGTERM").isEqualTo(143);
        } finally {
            stop(child);
        }
    }

    @Test
    void a_usage_error_exits_2() throws Exception {
        Path stderr = dir.resolve("usage.err");
        Process child = start(stderr, "--port", "nope");
        try {
            assertThat(child.waitFor(PATIENCE_S, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isEqualTo(2);
            assertThat(Files.readAllLines(stderr)).singleElement().asString().startsWith("provider: --port must be");
        } finally {
            stop(child);
        }
    }

    private static Process start(Path stderr, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                ProviderServiceMain.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Always leaves no child behind, whatever the test did. */
    private static void stop(Process child) throws InterruptedException {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        if (!child.waitFor(PATIENCE_S, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(PATIENCE_S, TimeUnit.SECONDS);
        }
    }
}
