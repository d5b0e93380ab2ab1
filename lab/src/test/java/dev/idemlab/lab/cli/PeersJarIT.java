package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code lab peers} from the built {@code lab.jar} in a process of its own: Spring, Camel and
 * Redisson repackaged beside the lab must still start and report their own versions.
 */
class PeersJarIT {

    @Test
    void theLibrariesRunFromTheShadedJarAndTheServerIsStoppedAfterwards() throws Exception {
        Path jar = Path.of(System.getProperty("lab.jar", "target/lab.jar"));
        assertThat(jar).exists();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "peers", "--library", "idempotency-lab-wait,jdempotent-redis,spring-integration,camel",
                "--latency-ms", "800", "--retry-at-ms", "200"));
        Path out = Files.createTempFile("peers-out", ".txt");
        Path err = Files.createTempFile("peers-err", ".txt");
        try {
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("lab peers did not finish");
            }
            String stdout = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(process.exitValue()).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
            assertThat(stdout).contains("\njdempotent-redis 1.1.0").contains("\nspring-integration 6.5.3")
                    .contains("\ncamel 4.14.0")
                    .containsPattern("in-flight\\s+responses=\\[ch_1, null\\]\\s+charges made=\\[ch_1\\]")
                    .containsPattern("in-flight\\s+responses=\\[ch_1, MessageRejectedException\\]")
                    .containsPattern("\\n  idempotency-lab-wait(\\s+one charge, consistent){4}\\n");
            Matcher address = Pattern.compile("at 127\\.0\\.0\\.1:(\\d+)\\)").matcher(stdout);
            assertThat(address.find()).as(stdout).isTrue();
            int port = Integer.parseInt(address.group(1));
            assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close())
                    .as("nothing listens on the lab's private port %d any more", port)
                    .isInstanceOf(java.net.ConnectException.class);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
