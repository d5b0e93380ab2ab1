package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, defect 6: messages a newcomer met that did not say what was wrong. Each test is named
 * after the message that misled, and fails on the message the lab used to print.
 */
class MessagesSayWhatIsWrongTest {

    @Test
    void labAloneListsEveryCommandNotThreeOfThem() {
        LabRun run = LabRun.of();
        assertThat(run.exitCode()).isEqualTo(2);
        for (String command : LabCommand.commandLine().getSubcommands().keySet()) {
            if (!command.equals("help")) {
                assertThat(run.err()).as("names %s", command).contains(command);
            }
        }
        assertThat(run.err()).contains("missing command: one of scenario, check, load, peers, faults, nemesis");
    }

    @ParameterizedTest(name = "--redis-url {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "redis://127.0.0.1:abc|the port must be a number between 1 and 65535, got 'abc'",
            "redis://:s3cret@127.0.0.1:63x79|the port must be a number between 1 and 65535, got '63x79'",
            "redis://:6379|no host"})
    void aBadPortInARedisUrlIsCalledABadPortNotNoHost(String url, String rule) {
        LabRun run = LabRun.of("scenario", "key-reuse", "--redis-url", url);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("s3cret");
    }

    @Test
    void aWrongRoleInAPgUrlNamesHostPortDatabaseAndRoleNotUnknown() {
        try (LocalPostgres users = LocalPostgres.start()) {
            String url = "jdbc:postgresql://" + users.address() + "/postgres?user=no_such_role";
            LabRun run = LabRun.of("scenario", "key-reuse", "--store", "postgres", "--pg-url", url, "--latency-ms", "1");
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).doesNotContain("at unknown")
                    .contains(users.address() + ", database postgres, role no_such_role");
        }
    }

    @ParameterizedTest(name = "nemesis --duration {0}")
    @CsvSource({"500ms", "2h"})
    void theNemesisDurationsRefusalStatesItsOwnRange(String duration) {
        LabRun run = LabRun.of("nemesis", "--duration", duration);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("must be a time from 1s to 1h").doesNotContain("100ms");
    }

    @Test
    void loadSaysADeadRedissErrorOnce() throws IOException {
        int dead;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = socket.getLocalPort();
        }
        LabRun run = LabRun.of("load", "--store", "redis", "--redis-url", "redis://127.0.0.1:" + dead,
                "--requests", "10", "--clients", "1");
        assertThat(run.exitCode()).isEqualTo(1);
        Matcher said = Pattern.compile("nothing answers at 127\\.0\\.0\\.1:" + dead).matcher(run.err());
        int times = 0;
        while (said.find()) {
            times++;
        }
        assertThat(times).as(run.err()).isEqualTo(1);
    }
}
