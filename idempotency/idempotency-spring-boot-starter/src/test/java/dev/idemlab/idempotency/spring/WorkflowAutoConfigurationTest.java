package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyWorkflowAutoConfiguration;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * When the starter makes {@link IdempotentWorkflows}, what it refuses when made (naming the rule, as
 * {@code @LocalEffect} does), and that a local step's {@code JdbcTemplate} writes in the step's own
 * transaction, with its recovery point. On a real PostgreSQL.
 */
class WorkflowAutoConfigurationTest {

    private static LocalPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = LocalPostgres.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private final ApplicationContextRunner memory = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWorkflowAutoConfiguration.class));

    private ApplicationContextRunner onPostgres() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
                        IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWorkflowAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(),
                        "spring.datasource.username=postgres", "idempotency.store=postgres",
                        "idempotency.store-failure-mode=fail-closed");
    }

    private ApplicationContextRunner withTransactions() {
        return onPostgres().withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class));
    }

    /** A service that injects the workflows, as one does. */
    static final class Placement {
        final IdempotentWorkflows workflows;

        Placement(IdempotentWorkflows workflows) {
            this.workflows = workflows;
        }
    }

    @Test
    void onTheStoresDataSourceAndTransactionManagerAServiceGetsIt() {
        withTransactions().withBean(Placement.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Placement.class).workflows).isSameAs(context.getBean(IdempotentWorkflows.class));
        });
    }

    @Test
    void withoutSpringJdbcThereIsNone() {
        withTransactions().withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
                .run(context -> assertThat(context).doesNotHaveBean(IdempotentWorkflows.class));
    }

    @Test
    void withoutIdempotencyPostgresThereIsNoneAndTheApplicationStarts() {
        memory.withClassLoader(new FilteredClassLoader("dev.idemlab.idempotency.store.postgres")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(IdempotentWorkflows.class);
        });
    }

    @Test
    void anApplicationsOwnBeanReplacesIt() {
        withTransactions().withUserConfiguration(OwnWorkflows.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeanNamesForType(IdempotentWorkflows.class)).containsExactly("ownWorkflows");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnWorkflows {
        @Bean
        IdempotentWorkflows ownWorkflows(IdempotencyCoordinator coordinator, IdempotencyStore store,
                                         PlatformTransactionManager transactions) {
            return IdempotentWorkflows.of(coordinator, store, transactions, getClass().getClassLoader());
        }
    }

    @Test
    void aStoreThatIsNotPostgresFailsStartupWhenAServiceInjectsIt() {
        memory.withBean(Placement.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("IdempotentWorkflows: a workflow needs idempotency.store=postgres")
                    .hasMessageContaining("InMemoryIdempotencyStore");
        });
    }

    @Test
    void aStoreThatIsNotPostgresIsFineWhenNothingRunsAWorkflow() {
        memory.run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void noTransactionManagerFailsStartup() {
        onPostgres().withBean(Placement.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("IdempotentWorkflows: a workflow needs one PlatformTransactionManager");
        });
    }

    @Test
    void aTransactionManagerOnAnotherDataSourceFailsStartup() {
        onPostgres().withBean(Placement.class).withBean("otherTransactions", PlatformTransactionManager.class,
                () -> new DataSourceTransactionManager(new DriverManagerDataSource(postgres.jdbcUrl(), "postgres", "")))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .hasMessageContaining("IdempotentWorkflows")
                            .hasMessageContaining("must manage the DataSource the PostgreSQL store runs on");
                });
    }

    @Test
    void aTransactionManagerWithSynchronizationOffFailsStartup() {
        onPostgres().withBean(Placement.class).withUserConfiguration(SynchronizationOff.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("IdempotentWorkflows")
                    .hasMessageContaining("SYNCHRONIZATION_NEVER");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class SynchronizationOff {
        @Bean
        PlatformTransactionManager transactionManager(javax.sql.DataSource dataSource) {
            DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
            manager.setTransactionSynchronization(DataSourceTransactionManager.SYNCHRONIZATION_NEVER);
            return manager;
        }
    }

    @Test
    void aLocalStepsJdbcTemplateWritesInTheStepsTransactionWithItsRecoveryPoint() {
        withTransactions().run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            IdempotentWorkflows workflows = context.getBean(IdempotentWorkflows.class);
            jdbc.execute("create table if not exists workflow_rows (key text not null, step text not null)");
            String key = UUID.randomUUID().toString();
            AtomicInteger paidCalls = new AtomicInteger();
            Workflow workflow = Workflow.builder()
                    .local("row_created", (connection, progress, ctx) -> {
                        jdbc.update("insert into workflow_rows values (?, 'row_created')", key);
                        return "created";
                    })
                    .local("row_paid", (connection, progress, ctx) -> {
                        jdbc.update("insert into workflow_rows values (?, 'row_paid')", key);
                        if (paidCalls.incrementAndGet() == 1) {
                            throw new IllegalStateException("the step fails after its write");
                        }
                        return "paid";
                    })
                    .build();

            assertThatThrownBy(() -> workflows.run("rows.write", key, Map.of("key", key), workflow))
                    .hasMessage("the step fails after its write");
            assertThat(steps(jdbc, key)).as("the failed step's JdbcTemplate write rolled back with it")
                    .containsExactly("row_created");
            Workflow.Progress resumed = workflows.run("rows.write", key, Map.of("key", key), workflow);

            assertThat(resumed.outputs()).containsExactly(Map.entry("row_created", "created"),
                    Map.entry("row_paid", "paid"));
            assertThat(steps(jdbc, key)).as("the retry resumed after row_created's recovery point")
                    .containsExactlyInAnyOrder("row_created", "row_paid");
        });
    }

    @Test
    void aRunInsideATransactionIsRefusedBeforeAnythingIsReserved() {
        withTransactions().run(context -> {
            IdempotentWorkflows workflows = context.getBean(IdempotentWorkflows.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            String key = UUID.randomUUID().toString();
            AtomicInteger ran = new AtomicInteger();
            Workflow workflow = Workflow.builder()
                    .local("row_created", (connection, progress, ctx) -> Integer.toString(ran.incrementAndGet()))
                    .build();
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            assertThatThrownBy(() -> transaction.execute(status -> {
                try {
                    return workflows.run("rows.refused", key, Map.of("key", key), workflow);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            })).isInstanceOf(IllegalTransactionStateException.class)
                    .hasMessageContaining("IdempotentWorkflows.run(rows.refused) was called inside a transaction");
            assertThat(ran).hasValue(0);
            assertThat(store.lookup("rows.refused:" + key)).as("nothing reserved").isEmpty();
        });
    }

    @Test
    void keysAreScopedPerPrincipalAsAnIdempotentMethodsAreUnlessTheRunIsGlobal() {
        withTransactions().run(context -> {
            IdempotentWorkflows workflows = context.getBean(IdempotentWorkflows.class);
            AtomicInteger runs = new AtomicInteger();
            Workflow counted = Workflow.builder()
                    .local("counted", (connection, progress, ctx) -> Integer.toString(runs.incrementAndGet()))
                    .build();
            String key = UUID.randomUUID().toString();
            String global = UUID.randomUUID().toString();

            String alice = as("alice", () -> workflows.run("rows.scoped", key, Map.of("who", "alice"), counted));
            String bob = as("bob", () -> workflows.run("rows.scoped", key, Map.of("who", "bob"), counted));
            String aliceAgain = as("alice", () -> workflows.run("rows.scoped", key, Map.of("who", "alice"), counted));
            as("alice", () -> workflows.runGlobal("rows.scoped", global, Map.of("who", "alice"), counted));

            assertThat(List.of(alice, bob, aliceAgain)).as("bob's key is his own; alice's retry replays hers")
                    .containsExactly("1", "2", "1");
            assertThatThrownBy(() -> as("bob", () -> workflows.runGlobal("rows.scoped", global, Map.of("who", "bob"),
                    counted))).as("a global key is one record for every caller")
                    .isInstanceOf(IdempotencyKeyReuseException.class);
            assertThat(runs).hasValue(3);
        });
    }

    @FunctionalInterface
    private interface Run {
        Workflow.Progress run() throws Exception;
    }

    /** What {@code run} recorded in its one step, run as the authenticated principal {@code name}. */
    private static String as(String name, Run run) throws Exception {
        SecurityContextHolder.getContext().setAuthentication(
                UsernamePasswordAuthenticationToken.authenticated(name, "n/a", List.of()));
        try {
            return run.run().output("counted");
        } finally {
            SecurityContextHolder.clearContext();
        }
    }

    private static List<String> steps(JdbcTemplate jdbc, String key) {
        return jdbc.queryForList("select step from workflow_rows where key = ?", String.class, key);
    }
}
