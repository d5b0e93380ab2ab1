package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scenario run alone on a store, or with an option, it cannot honour is a usage error naming the rule
 * (exit 2, nothing on standard output): it used to print a SKIP line, twice for two variants, and exit 0.
 * Where only some of its variants cannot run, the others run and the SKIP is said once.
 */
class ScenariosRefuseWhatTheyCannotStageTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "scenario eviction --store memory|eviction sets maxmemory and maxmemory-policy on the lab's own private single Redis: --store must be redis, got 'memory'",
            "scenario eviction --store redis-cluster|--store must be redis, got 'redis-cluster'",
            "scenario ghost-reservation --store memory|ghost-reservation pauses the lab's own private single Redis: --store must be redis, got 'memory'",
            "scenario ghost-reservation --store postgres|the statement and lock timeouts cancel a stalled reserve",
            "scenario lease-overrun --paused-holder --store memory|--paused-holder runs the holder in a child JVM, which cannot reach the memory store",
            "scenario crash-mid-charge --provider in-process|--provider in-process: crash-mid-charge (the holder's JVM is killed after the provider charged, before the record was completed) always reaches the provider over HTTP",
            "scenario lease-overrun --provider in-process|--provider in-process: lease-overrun (the holder is paused (SIGSTOP) past its lease",
            "scenario stale-holder-order --provider in-process|--provider in-process: stale-holder-order",
            "scenario in-flight --store memory --call-through proxy|--call-through proxy: the result cache (policy run) is the lab's baseline, not a policy of the library: Idempotency.proxy wraps the library's coordinator, under wait or raise; give --policy wait or raise (all includes run)",
            "scenario key-reuse --store memory --call-through proxy --policy run|--call-through proxy: the result cache (policy run) is the lab's baseline",
            "scenario in-flight --store redis --policy wait --target spring-sample --call-through proxy|--call-through proxy: --target spring-sample runs the holder in a child JVM",
            "scenario in-flight --store memory --policy wait --client stripe-java --call-through proxy|--call-through proxy: in-flight cannot charge through Idempotency.proxy here: the Stripe Java SDK sends HTTP requests to the demo server",
            "scenario in-flight --store memory --policy wait --transport http --call-through proxy|--call-through proxy: in-flight cannot charge through Idempotency.proxy here: the callers send HTTP requests to the demo server",
            "scenario provider-timeout --store memory --call-through bogus|--call-through must be coordinator or proxy, got 'bogus'"
    })
    void aStoreOrOptionTheScenarioCannotHonourIsRefused(String commandLine, String rule) {
        LabRun run = LabRun.of(commandLine.split(" "));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(rule).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(run.out()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"lease-overrun,--latency-ms", "lease-overrun,--lease-s", "crash-mid-charge,--lease-s",
            "crash-mid-order,--latency-ms", "ghost-reservation,--lease-s"})
    void theHelpShowsAnOptionTheScenarioSetsForItselfAsRefusedNotWithADefault(String scenario, String option) {
        LabRun help = LabRun.of("scenario", scenario, "--help");
        assertThat(help.exitCode()).isZero();
        String description = help.out().substring(help.out().indexOf("      " + option + "="));
        description = description.substring(0, description.indexOf("Refused here.") + "Refused here.".length());
        assertThat(description).contains("Set by this scenario for itself").doesNotContain("Default:");

        LabRun refused = LabRun.of("scenario", scenario, option, "5");
        assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
        assertThat(refused.err()).contains(option + ": " + scenario + " sets it for itself");
    }

    @Test
    void aScenarioThatTakesTheOptionStillShowsItsDefault() {
        LabRun help = LabRun.of("scenario", "in-flight", "--help");
        assertThat(help.out()).contains("How long the provider takes per charge").contains("Default: 300.")
                .doesNotContain("Set by this scenario for itself");
    }

    @Test
    void evictionOnARedisGivenByUrlIsRefusedAndTheServerKeepsItsPolicy() {
        try (RedisBackend users = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
             RedisClient client = RedisClient.create(users.uri());
             StatefulRedisConnection<String, String> connection = client.connect()) {
            Map<String, String> before = connection.sync().configGet("maxmemory*");

            LabRun run = LabRun.of("scenario", "eviction", "--redis-url", users.uri());

            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
            assertThat(run.err()).contains("this run's Redis was given by URL")
                    .contains("the lab never changes a server it did not start").doesNotContain("skipped on");
            assertThat(run.out()).isEmpty();
            assertThat(connection.sync().configGet("maxmemory*")).isEqualTo(before)
                    .containsEntry("maxmemory-policy", "noeviction");
        }
    }

    @Test
    void aVariantThatCannotRunIsSkippedOnceAndTheOthersRun() {
        LabRun run = LabRun.of("scenario", "lease-overrun", "--store", "memory");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("heartbeat off").contains("heartbeat on")
                .containsOnlyOnce("lease-overrun skipped on memory: lease-overrun runs its holder in a child JVM");
    }
}
