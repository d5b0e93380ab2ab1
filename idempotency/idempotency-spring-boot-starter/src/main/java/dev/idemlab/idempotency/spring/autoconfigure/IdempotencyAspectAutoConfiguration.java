package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.IdempotencyAdvisor;
import dev.idemlab.idempotency.spring.LocalEffectTransactions;
import dev.idemlab.idempotency.spring.TransactionOrderCheck;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.util.function.SingletonSupplier;

/**
 * The advisor that makes {@code @Idempotent} methods of Spring beans idempotent, ordered by
 * {@code idempotency.aspect.order} (see {@link IdempotencyAdvisor} for why it must run outside
 * {@code @Transactional}). An infrastructure bean, so that whichever auto-proxy creator the
 * application has (Boot's AOP one, or the transactions' own) applies it. With spring-jdbc and the
 * PostgreSQL store, {@link LocalEffectTransactions} runs the {@code @LocalEffect} methods.
 */
@AutoConfiguration(after = IdempotencyCoordinatorAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration")
@ConditionalOnClass(Advisor.class)
@ConditionalOnBooleanProperty(name = "idempotency.aspect.enabled", matchIfMissing = true)
public final class IdempotencyAspectAutoConfiguration {

    /**
     * Static, and reading its order from the environment rather than the bound properties: the
     * auto-proxy creator makes advisors while post-processors are still being registered, before
     * configuration properties are bound.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static IdempotencyAdvisor idempotencyAdvisor(ObjectProvider<IdempotencyCoordinator> coordinator,
                                                 ObjectProvider<LocalEffectTransactions> localEffects,
                                                 Environment environment) {
        int order = environment.getProperty("idempotency.aspect.order", Integer.class, IdempotencyAdvisor.DEFAULT_ORDER);
        // Looked up on the first call of a @LocalEffect method, then kept: not once per call.
        return new IdempotencyAdvisor(coordinator, SingletonSupplier.of(localEffects::getIfAvailable), order);
    }

    /**
     * With spring-jdbc and the PostgreSQL store on the class path: what runs {@code @LocalEffect} methods,
     * whose record is completed in their own transaction. It checks the store and the transaction manager
     * at startup only when such a method exists.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.transaction.PlatformTransactionManager",
            "org.springframework.jdbc.datasource.DataSourceUtils",
            "dev.idemlab.idempotency.store.postgres.LocalEffects"})
    static final class LocalEffectConfiguration {

        @Bean
        @ConditionalOnMissingBean
        static LocalEffectTransactions idempotencyLocalEffects(
                ObjectProvider<IdempotencyAdvisor> advisor, ObjectProvider<IdempotencyStore> store,
                ObjectProvider<PlatformTransactionManager> transactions) {
            return new LocalEffectTransactions(advisor, store, transactions);
        }
    }

    /** With Spring's transactions: a WARN at startup when the advice would run inside {@code @Transactional}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor")
    static final class TransactionOrder {

        @Bean
        @ConditionalOnMissingBean
        static TransactionOrderCheck idempotencyTransactionOrderCheck(
                ObjectProvider<IdempotencyAdvisor> idempotency,
                ObjectProvider<BeanFactoryTransactionAttributeSourceAdvisor> transactions) {
            return new TransactionOrderCheck(idempotency, transactions);
        }
    }
}
