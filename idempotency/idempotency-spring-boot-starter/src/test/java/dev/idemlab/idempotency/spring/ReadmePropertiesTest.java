package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter page's {@code application.yml} ({@code docs/starter.md}) binds, and passes the library's rules. */
class ReadmePropertiesTest {

    private static final Path STARTER_PAGE = Path.of("../../docs/starter.md");

    @Test
    void theReadmesYamlBindsToTheStartersProperties() throws Exception {
        String page = Files.readString(STARTER_PAGE);
        int start = page.indexOf("```yaml\n# application.yml\n");
        assertThat(start).as("docs/starter.md's application.yml block").isNotNegative();
        String yaml = page.substring(page.indexOf('\n', start) + 1, page.indexOf("```\n", start + 8));
        List<PropertySource<?>> sources = new YamlPropertySourceLoader()
                .load("readme", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        IdempotencyProperties properties = new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate("idempotency", IdempotencyProperties.class);

        assertThat(properties.store()).isEqualTo(StoreKind.POSTGRES);
        assertThat(properties.keyPrefix()).isEqualTo("payments:");
        assertThat(properties.aspect().order()).isEqualTo(IdempotencyAdvisor.DEFAULT_ORDER);
        assertThat(properties.web().routes()).singleElement().satisfies(route -> {
            assertThat(route.urlPatterns()).containsExactly("/orders");
            assertThat(route.allowWaiting()).isTrue();
            // without it, a service with no login in front of the filter answers 401 to every request
            assertThat(route.allowAnonymous()).isTrue();
        });
        IdempotencyConfig config = properties.coordinatorConfig();
        assertThat(config.policy()).isEqualTo(InFlightPolicy.WAIT);
        assertThat(config.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.storeFailureMode()).isEqualTo(StoreFailureMode.FAIL_OPEN);
    }
}
