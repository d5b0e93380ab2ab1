package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab serve} and {@code lab probe} as a user runs them: two processes of the built jar. The
 * server process is always stopped (SIGTERM, which runs its shutdown hook), by the process handle this
 * test started, also when an assertion fails.
 */
class ServeJarIT {

    private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");

    private static List<String> lab(String... args) {
        Path jar = Path.of(System.getProperty("lab.jar", "target/lab.jar"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString()));
        command.addAll(List.of(args));
        return command;
    }

    @Test
    void theProbePassesAgainstServeAndTheServerStopsOnSigterm() throws Exception {
        Process serve = new ProcessBuilder(lab("serve", "--store", "memory")).redirectErrorStream(true).start();
        try {
            String url = awaitUrl(serve);
            Path out = Files.createTempFile("probe", ".txt");
            try {
                Process probe = new ProcessBuilder(lab("probe", "--url", url + "/orders/o-1/charge"))
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!probe.waitFor(3, TimeUnit.MINUTES)) {
                    probe.destroyForcibly();
                    throw new AssertionError("lab probe did not finish");
                }
                String report = Files.readString(out, StandardCharsets.UTF_8);
                assertThat(probe.exitValue()).as(report).isZero();
                assertThat(report).contains("every check passed");
            } finally {
                Files.deleteIfExists(out);
            }
            serve.destroy();
            assertThat(serve.waitFor(1, TimeUnit.MINUTES)).as("lab serve stops on SIGTERM").isTrue();
        } finally {
            if (serve.isAlive()) {
                serve.destroyForcibly();
            }
        }
    }

    private static String awaitUrl(Process serve) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = lines.readLine()) != null; ) {
            seen.append(line).append('\n');
            Matcher matcher = LISTENING.matcher(line);
            if (matcher.find()) {
                // Keep draining its output so the server never blocks on a full pipe.
                Thread drain = new Thread(() -> drain(lines), "serve-output");
                drain.setDaemon(true);
                drain.start();
                return matcher.group(1);
            }
        }
        throw new AssertionError("lab serve exited before listening:\n" + seen);
    }

    private static void drain(BufferedReader lines) {
        try {
            lines.lines().forEach(ignored -> { });
        } catch (UncheckedIOException closed) {
            // The server is gone and its pipe closed under the read: nothing is left to drain.
        }
    }
}
