package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyWebAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 39, defect 5, through the starter's properties: a lease of a few nanoseconds and a body limit
 * of {@code Integer.MAX_VALUE} were bound and accepted, and failed later (a heartbeat interval of zero;
 * every guarded request a 500). Startup now fails with the library builder's rule.
 */
class SettingsThatCannotWorkFailStartupTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWebAutoConfiguration.class))
            .withPropertyValues("idempotency.policy=raise",
                    "idempotency.web.routes[0].operation=orders.create",
                    "idempotency.web.routes[0].url-patterns=/orders/*",
                    "idempotency.web.routes[0].documentation=https://api.example.com/docs/idempotency");

    private static InvalidIdempotencyConfigException startupRefusal(org.springframework.boot.test.context.assertj
            .AssertableWebApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable cause = StoreAutoConfigurationTest.rootCause(context.getStartupFailure());
        assertThat(cause).isInstanceOf(InvalidIdempotencyConfigException.class);
        return (InvalidIdempotencyConfigException) cause;
    }

    @Test
    void aLeaseOfAFewNanosecondsFailsStartupNamingTheHeartbeatRule() {
        runner.withPropertyValues("idempotency.lease=5ns").run(context ->
                assertThat(startupRefusal(context).rule()).startsWith("lease must be at least PT0.003S"));
    }

    @Test
    void aBodyLimitOfIntegerMaxValueFailsStartupNamingTheCeiling() {
        runner.withPropertyValues("idempotency.web.routes[0].max-body-bytes=2147483647").run(context -> {
            InvalidIdempotencyConfigException refusal = startupRefusal(context);
            assertThat(refusal.setting()).isEqualTo("maxBodyBytes");
            assertThat(refusal.rule()).contains("at most 1073741824");
        });
    }
}
