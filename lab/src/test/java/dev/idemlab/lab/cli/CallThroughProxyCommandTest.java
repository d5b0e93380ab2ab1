package dev.idemlab.lab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --call-through proxy} from the command line: the run says it charged through the proxy, and
 * its figures are the ledger's. Issue 26; the four scenarios on every store are compared with the
 * direct path in {@code ThePostsTablesThroughTheProxyTest}, the refusals in
 * {@code ScenariosRefuseWhatTheyCannotStageTest}.
 */
class CallThroughProxyCommandTest {

    @Test
    void keyReuseThroughTheProxySaysSoAndTheLedgerHoldsOneCharge() {
        LabRun run = LabRun.of("scenario", "key-reuse", "--store", "memory", "--call-through", "proxy",
                "--latency-ms", "20");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("charged through Idempotency.proxy")
                .containsPattern("first call +-> ch_1 +charges made=1")
                .containsPattern("same key, amount 5 +-> IdempotencyKeyReuseException +charges made=1");
    }

    @Test
    void theJsonNamesTheProxyAndCarriesTheLedger() throws Exception {
        LabRun run = LabRun.of("scenario", "in-flight", "--store", "memory", "--call-through", "proxy",
                "--policy", "wait", "--format", "json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode wait = new ObjectMapper().readTree(run.out()).get(0);
        assertThat(wait.get("settings").get("callThrough").asText()).isEqualTo("proxy");
        assertThat(wait.get("charges").toString()).isEqualTo("[\"ch_1\"]");
    }

    @Test
    void theHelpOfEachOfThePostsScenariosShowsTheOption() {
        for (String scenario : new String[] {"in-flight", "key-reuse", "provider-timeout", "store-down"}) {
            LabRun help = LabRun.of("scenario", scenario, "--help");
            assertThat(help.out()).as(scenario).contains("--call-through=HOW").contains("Idempotency.proxy")
                    .contains("Default: coordinator.");
        }
    }
}
