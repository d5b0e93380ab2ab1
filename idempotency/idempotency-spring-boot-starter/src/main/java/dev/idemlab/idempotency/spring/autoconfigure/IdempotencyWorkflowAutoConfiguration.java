package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.IdempotentWorkflows;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.io.ResourceLoader;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * With spring-jdbc and idempotency-postgres on the class path: {@link IdempotentWorkflows}, which runs
 * multi-step workflows under a key through the coordinator, each local step in a transaction of the
 * application's transaction manager. The bean is lazy: it is made when the application injects it (at
 * startup, for a constructor or field), and only then are the store and the transaction manager checked,
 * so that an application on another store that never runs a workflow starts as before, while one that
 * injects it on the wrong store fails startup naming the rule.
 */
@AutoConfiguration(after = IdempotencyCoordinatorAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.transaction.PlatformTransactionManager",
        "org.springframework.jdbc.datasource.DataSourceUtils",
        "dev.idemlab.idempotency.store.postgres.Workflow"})
public final class IdempotencyWorkflowAutoConfiguration {

    /**
     * @throws IllegalStateException naming the rule, when made on a store that is not the PostgreSQL one
     *     or without one transaction manager, with synchronization on, on that store's {@code DataSource}
     */
    @Bean
    @Lazy
    @ConditionalOnMissingBean
    IdempotentWorkflows idempotentWorkflows(ObjectProvider<IdempotencyCoordinator> coordinator,
                                            ObjectProvider<IdempotencyStore> store,
                                            ObjectProvider<PlatformTransactionManager> transactions,
                                            ResourceLoader resources) {
        IdempotencyCoordinator chosen = coordinator.getIfUnique();
        if (chosen == null) {
            throw new IllegalStateException("IdempotentWorkflows: a workflow runs through one IdempotencyCoordinator "
                    + "bean, and there is none, or more than one");
        }
        return IdempotentWorkflows.of(chosen, store.getIfUnique(), transactions.getIfUnique(),
                resources.getClassLoader());
    }
}
