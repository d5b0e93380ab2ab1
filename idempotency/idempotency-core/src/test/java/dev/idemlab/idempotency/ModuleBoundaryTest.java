package dev.idemlab.idempotency;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module descriptor the compiler enforces for every modular consumer: the API, the SPI and the
 * memory store are exported, the coordinator's implementation is not, and the optional dependencies
 * are required only statically.
 */
class ModuleBoundaryTest {

    private static ModuleDescriptor descriptor() throws Exception {
        try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    @Test
    void exportsTheApiAndTheSpiButNotTheInternals() throws Exception {
        Set<String> exported = descriptor().exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        assertThat(exported).containsExactlyInAnyOrder("dev.idemlab.idempotency", "dev.idemlab.idempotency.spi",
                "dev.idemlab.idempotency.store.memory");
    }

    @Test
    void jacksonMicrometerAndResilience4jAreStaticRequirementsOnly() throws Exception {
        Set<String> runtime = descriptor().requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toSet());
        Set<String> optional = descriptor().requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toSet());
        assertThat(runtime).containsExactlyInAnyOrder("java.base", "org.slf4j");
        assertThat(optional).containsExactlyInAnyOrder("com.fasterxml.jackson.databind", "micrometer.core", "micrometer.observation",
                "io.github.resilience4j.circuitbreaker", "io.github.resilience4j.core");
    }
}
