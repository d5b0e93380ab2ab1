package dev.idemlab.lab.probe;

import dev.idemlab.lab.http.SpringSample;
import dev.idemlab.lab.http.SpringSampleJar;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux sample ({@code examples/spring-boot-payments-webflux}) as a black box: {@code lab probe}
 * passes against the starter's WebFlux filter, row by row, with the sample's ledger counting the charges
 * each key made. Started from its runnable jar in a child JVM on 127.0.0.1 and an ephemeral port, as the
 * servlet sample is (its Netty and Reactor are not the lab's).
 */
class WebFluxSampleProbeTest {

    @Test
    void theProbePassesAgainstTheWebFluxSample() throws Exception {
        Path jar = SpringSampleJar.WEBFLUX.jar().orElse(null);
        assertThat(jar).as(SpringSampleJar.WEBFLUX.missingMessage()).isNotNull();
        try (SpringSample sample = SpringSample.start(jar, List.of(), Map.of())) {
            ProbeSettings settings = new ProbeSettings(URI.create(sample.uri() + "/orders/o-1/charge"), "POST",
                    ProbeSettings.DEFAULT_BODY, "client-a", 8, "client-b");
            Probe probe = new Probe(settings);
            List<ProbeRow> rows = probe.run();

            assertThat(probe.ledgerOffered()).isTrue();
            assertThat(rows).filteredOn(row -> row.verdict() == ProbeRow.Verdict.FAIL).isEmpty();
            assertThat(row(rows, "concurrent identical")).satisfies(row -> {
                assertThat(row.verdict()).isEqualTo(ProbeRow.Verdict.PASS);
                assertThat(row.got()).contains("ledger: 1 charge");
            });
            // Each of these has what it needs here (two clients, a fault hook, a 409): a SKIP would hide it.
            for (String check : List.of("one key, two clients", "retry after a 5xx", "retry after an application 4xx",
                    "refusals explained")) {
                assertThat(row(rows, check).verdict()).as(check).isEqualTo(ProbeRow.Verdict.PASS);
            }
        }
    }

    private static ProbeRow row(List<ProbeRow> rows, String check) {
        return rows.stream().filter(row -> row.check().startsWith(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no probe row " + check + " in " + rows));
    }
}
