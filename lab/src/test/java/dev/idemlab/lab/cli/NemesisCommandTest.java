package dev.idemlab.lab.cli;

import dev.idemlab.lab.http.SpringSampleJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code lab nemesis} from the command line: its usage errors, and a short run that says what it did. */
class NemesisCommandTest {

    @ParameterizedTest(name = "{0} {1} is refused naming the rule")
    @CsvSource({
            "--store, mongo, '--store must be one of memory, redis, postgres, redis-cluster'",
            "--lease-ms, 100, --lease-ms must be from 500 to 60000",
            "--sabotage, everything, 'must be none, result-cache, forgetful-store, shared-scope, commit-first or bare-handler'",
            "--through, carrier-pigeon, 'must be coordinator, proxy, http, webflux, sample or kafka'",
            "--clients, everyone, 'must be bearer, anonymous or named-anonymous'",
            "--duration, 500ms, must be a time from 1s to 1h",
            "--format, json, --format must be table or markdown",
            "--format, csv, Invalid value for option '--format'"})
    void badOptionsAreUsageErrors(String option, String value, String message) {
        LabRun run = LabRun.of("nemesis", option, value);
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    @ParameterizedTest(name = "--effects local with {0} is refused naming the rule")
    @CsvSource(delimiter = '|', value = {
            "--effects,elsewhere | --effects must be none or local",
            "--effects,local | --effects local needs --store postgres",
            "--effects,local,--store,postgres,--through,proxy | --through must be coordinator",
            "--effects,local,--store,postgres,--sabotage,result-cache | --sabotage must be none"})
    void localEffectsGoWithPostgresAndTheLibraryAsItIs(String args, String message) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("nemesis"));
        all.addAll(java.util.List.of(args.split(",")));
        LabRun run = LabRun.of(all.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    @ParameterizedTest(name = "the nemesis on consumers with {0} is refused naming the rule")
    @CsvSource(delimiter = '|', value = {
            "--through,kafka | --through kafka runs consumers in child JVMs on a store they can reach: --store must be "
                    + "redis or postgres, got 'memory'",
            "--through,kafka,--store,redis,--sabotage,result-cache | --sabotage must be none, commit-first or bare-handler",
            "--store,redis,--sabotage,commit-first | --sabotage commit-first breaks a consumer: it needs --through kafka",
            "--store,redis,--kafka-url,127.0.0.1:9092 | --kafka-url names the broker of --through kafka",
            "--through,kafka,--store,redis,--kafka-url,no-port | --kafka-url: a Kafka URL is kafka://host:port"})
    void theNemesisOnConsumersRunsOnAStoreItsChildrenReach(String args, String message) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("nemesis"));
        all.addAll(java.util.List.of(args.split(",")));
        LabRun run = LabRun.of(all.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    @ParameterizedTest(name = "--through sample with {0} is refused naming the rule")
    @CsvSource(delimiter = '|', value = {
            "--through,sample | --through sample runs the Spring Boot sample in a JVM of its own on a single Redis or "
                    + "a PostgreSQL server: --store must be redis or postgres, got 'memory'",
            "--through,sample,--store,redis-cluster | --store must be redis or postgres, got 'redis-cluster'",
            "--through,sample,--store,redis,--sabotage,forgetful-store | with --through sample it must be none or "
                    + "result-cache",
            "--through,sample,--store,redis,--clients,anonymous | --clients anonymous is a route's setting"})
    void theSampleRunsOnAServerItsJvmCanReach(String args, String message) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("nemesis"));
        all.addAll(java.util.List.of(args.split(",")));
        LabRun run = LabRun.of(all.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    @ParameterizedTest(name = "{0} is refused naming the rule")
    @CsvSource(delimiter = '|', value = {
            "--through,webflux,--sabotage,result-cache | --sabotage result-cache puts the lab's result cache, which "
                    + "derives no downstream key, behind the route, and the WebFlux filter needs one",
            "--through,proxy,--clients,anonymous | it needs --through http or webflux, got --through proxy",
            "--through,proxy,--sabotage,shared-scope | it needs --through http or webflux, got --through proxy"})
    void theFiltersSettingsNeedAFilter(String args, String message) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("nemesis"));
        all.addAll(java.util.List.of(args.split(",")));
        LabRun run = LabRun.of(all.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("Exception");
    }

    @Test
    void throughTheSampleWithoutItsJarTheRunSaysHowToBuildIt() {
        String before = System.getProperty(SpringSampleJar.PROPERTY);
        System.setProperty(SpringSampleJar.PROPERTY, "no-such-dir/spring-boot-payments.jar");
        try {
            LabRun run = LabRun.of("nemesis", "--through", "sample", "--store", "redis");
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).contains("no Spring sample jar at no-such-dir/spring-boot-payments.jar: build it with "
                    + "./mvnw -B -q package -DskipTests").doesNotContain("\tat ");
        } finally {
            if (before == null) {
                System.clearProperty(SpringSampleJar.PROPERTY);
            } else {
                System.setProperty(SpringSampleJar.PROPERTY, before);
            }
        }
    }

    @Test
    void aClusterGivenByUrlIsNeverFaulted() {
        LabRun run = LabRun.of("nemesis", "--store", "redis-cluster", "--redis-url", "redis-cluster://127.0.0.1:1");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains("the nemesis plays its faults on the lab's own cluster only");
    }

    @Test
    void aShortRunOnTheMemoryStorePrintsTheSeedTheFaultsAndTheVerdict() {
        LabRun run = LabRun.of("nemesis", "--store", "memory", "--seed", "20261201", "--duration", "3s");
        assertThat(run.err()).contains("seed 20261201");
        assertThat(run.out()).contains("seed 20261201").contains("faults injected: ").contains("ledger: ")
                .contains("reproduce: java -jar lab/target/lab.jar nemesis --store memory --seed 20261201 --duration 3s");
        assertThat(run.exitCode()).as(run.out()).isZero();
    }
}
