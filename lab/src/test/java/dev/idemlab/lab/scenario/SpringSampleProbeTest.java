package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.ChargeRequest;
import dev.idemlab.lab.http.SpringSampleJar;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.probe.Probe;
import dev.idemlab.lab.probe.ProbeRow;
import dev.idemlab.lab.probe.ProbeSettings;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Spring Boot sample as a black box: {@code lab probe} passes against it (on the lab's private
 * Redis, under the starter's reservation), with the ledger it passes through; and {@code lab check}
 * turns a sample jar that was never built into a SKIP saying how to build it, never a pass.
 */
class SpringSampleProbeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theProbePassesAgainstTheSample() throws Exception {
        try (StoreBackend redis = StoreBackends.open("redis", ProvisioningOptions.defaults());
             IdempotencyStore store = redis.openStore()) {
            ScenarioContext context = new ScenarioContext(redis, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY);
            try (RaceApi sample = SampleRaceApi.TARGET.start(context, store, LabPolicy.WAIT, new Timeline(),
                    (api, key, amount) -> HTTP.send(ChargeRequest.of(api, "client-a", "warm-up", amount, key),
                            HttpResponse.BodyHandlers.ofString()))) {
                ProbeSettings settings = new ProbeSettings(URI.create(sample.uri() + "/orders/o-1/charge"), "POST",
                        ProbeSettings.DEFAULT_BODY, "client-a", 8, "client-b");
                Probe probe = new Probe(settings);
                List<ProbeRow> rows = probe.run();
                assertThat(probe.ledgerOffered()).isTrue();
                assertThat(rows).filteredOn(row -> row.verdict() == ProbeRow.Verdict.FAIL).isEmpty();
                assertThat(rows).filteredOn(row -> row.check().startsWith("concurrent identical"))
                        .singleElement().satisfies(row -> {
                            assertThat(row.verdict()).isEqualTo(ProbeRow.Verdict.PASS);
                            assertThat(row.got()).contains("ledger: 1 charge");
                        });
            }
        }
    }

    @Test
    void withoutTheJarTheRaceCannotBeStagedAndSaysHowToBuildIt() {
        String before = System.getProperty(SpringSampleJar.PROPERTY);
        System.setProperty(SpringSampleJar.PROPERTY, "no-such-dir/spring-boot-payments.jar");
        try (StoreBackend memory = StoreBackends.open("memory", ProvisioningOptions.defaults())) {
            ScenarioContext context = new ScenarioContext(memory, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY);
            assertThatThrownBy(() -> HttpInFlightScenario.throughSpringSample().run(context, LabPolicy.RUN))
                    .isInstanceOf(CannotStageException.class)
                    .hasMessageContaining("no Spring sample jar at no-such-dir/spring-boot-payments.jar: build it with");
        } finally {
            if (before == null) {
                System.clearProperty(SpringSampleJar.PROPERTY);
            } else {
                System.setProperty(SpringSampleJar.PROPERTY, before);
            }
        }
    }
}
