package dev.idemlab.bench.report;

import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The page's "proxy" section, from a real run of {@code ProxyBenchmark} (its JSON as the published one):
 * the proxy beside the direct call, its ratio the proxy's share of the direct call's throughput, and no
 * fingerprint section made of the proxy's rows (both have no store).
 */
class ProxySectionTest {

    private final Summary summary = Summary.of(JmhResults.read(List.of(resource("jmh-proxy.json"))));

    @Test
    void theProxyIsComparedWithTheDirectCallForAFirstCallAndAReplay() {
        List<Comparison> rows = summary.comparisons(null);

        assertThat(rows).extracting(Comparison::question)
                .containsExactly(Question.PROXY_FIRST_CALL, Question.PROXY_REPLAY);
        Comparison first = rows.get(0);
        assertThat(first.baseline()).isEqualTo("directFirstCall");
        assertThat(first.ratio()).isCloseTo(first.oursOpsPerSecond() / first.rawOpsPerSecond(), within(1e-12))
                .isCloseTo(0.522, within(0.001));
        assertThat(first.oursBytesPerOp()).isGreaterThan(first.rawBytesPerOp());
        assertThat(summary.stores()).as("the proxy's rows belong to no store's section").isEmpty();
        assertThat(summary.results().missing()).isEmpty();
    }

    @Test
    void thePageHasAProxySectionAndNoFingerprintSection() {
        String page = MarkdownPage.render(summary, new RunInfo(2, List.of()), Map.of());

        assertThat(page).contains("## proxy\n")
                .containsPattern("\\| first call, @Idempotent proxy \\| 1 \\| [\\d,]+ \\| the same call made directly "
                        + "on the coordinator \\| [\\d,]+ \\| 0\\.522 \\|")
                .containsPattern("\\| replay, @Idempotent proxy \\| 1 \\| direct \\| 1\\.212 \\|")
                .doesNotContain("## fingerprint");
    }

    private static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(ProxySectionTest.class.getResource("/" + name), name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
