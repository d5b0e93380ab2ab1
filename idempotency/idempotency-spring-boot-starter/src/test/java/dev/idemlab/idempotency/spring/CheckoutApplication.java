package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyWorkflowAutoConfiguration;
import dev.idemlab.provider.http.HttpPaymentProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The smallest Spring Boot application around {@link Checkout}: the application's {@code DataSource}, its
 * transaction manager and {@code JdbcTemplate}, and the starter's store, coordinator and
 * {@link IdempotentWorkflows}, nothing else, so that a child JVM running it starts quickly. The providers'
 * addresses come as {@code checkout.payments-url}, {@code checkout.legacy-payments-url} and
 * {@code checkout.mailer-url}.
 *
 * <p>{@link #main} is the holder of a crash-point test, in a JVM of its own: arguments {@code CHARGING KEY
 * ORDER_REF STOP_AT}, then the application's own ({@code --spring.datasource.url=...}). It places the order
 * once and says on standard output {@code at POINT} when it reaches {@code STOP_AT}, then waits for a line on
 * standard input (its parent kills it there), and {@code got ANSWER} if it ever finishes. Not an entry point
 * for people.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
        JdbcTemplateAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
        IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWorkflowAutoConfiguration.class})
class CheckoutApplication {

    static final String AT = "at ";
    static final String GOT = "got ";

    @Bean
    Checkout checkout(IdempotentWorkflows workflows, JdbcTemplate jdbc, Environment environment,
                      ObjectProvider<Checkout.StepHook> hook) {
        return new Checkout(workflows, jdbc, provider(environment, "checkout.payments-url"),
                provider(environment, "checkout.legacy-payments-url"), provider(environment, "checkout.mailer-url"),
                hook.getIfAvailable(() -> point -> { }));
    }

    private static HttpPaymentProvider provider(Environment environment, String property) {
        return HttpPaymentProvider.builder(URI.create(environment.getRequiredProperty(property)))
                .requestTimeout(Checkout.PROVIDER_DEADLINE).build();
    }

    /** Starts the application with {@code args} ({@code --name=value}), and {@code hook} unless it is null. */
    static ConfigurableApplicationContext start(Checkout.StepHook hook, String... args) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(CheckoutApplication.class)
                .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .properties("idempotency.store=postgres", "idempotency.lease=2s",
                        "idempotency.store-failure-mode=fail-closed", "spring.datasource.hikari.maximum-pool-size=4",
                        "logging.level.root=warn");
        if (hook != null) {
            application.initializers(context -> context.getBeanFactory().registerSingleton("stepHook", hook));
        }
        return application.run(args);
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Checkout.Charging charging = Checkout.Charging.valueOf(args[0]);
        String stopAt = args[3];
        Checkout.StepHook hook = point -> {
            if (point.equals(stopAt)) {
                out.println(AT + point);
                try {
                    if (in.readLine() == null) {
                        // Its parent is gone without killing it: it stops where it stands rather than go on.
                        Runtime.getRuntime().halt(3);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        String got;
        try (ConfigurableApplicationContext context = start(hook, Arrays.copyOfRange(args, 4, args.length))) {
            got = context.getBean(Checkout.class).place(args[1], args[2], charging).outputs().toString();
        } catch (Exception e) {
            got = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        out.println(GOT + got);
        System.exit(0);
    }
}
