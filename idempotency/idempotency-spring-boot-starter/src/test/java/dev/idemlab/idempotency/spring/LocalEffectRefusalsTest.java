package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.NameMatchTransactionAttributeSource;
import org.springframework.transaction.interceptor.RuleBasedTransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@code @LocalEffect} refuses at startup, naming the method and the rule: a store that is not the
 * PostgreSQL one, a transaction manager that is missing or on another {@code DataSource}, a method that
 * returns a stage, and a {@code @Transactional} of the method's own that would not join the advice's
 * transaction at READ COMMITTED (on a method of any visibility, read as the application's transaction
 * advice reads it) or that names another transaction manager, and a {@code @LocalEffect} with no
 * {@code @Idempotent} on any declaration of its method; and, at call time, every call of a method whose
 * {@code @Transactional} runs outside the advice. {@code @LocalEffect} and {@code @Idempotent} on
 * different declarations of one method (an interface's and its implementation's) make a local effect.
 * The store cases run on a real PostgreSQL.
 */
class LocalEffectRefusalsTest {

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
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyAspectAutoConfiguration.class));

    private ApplicationContextRunner onPostgres() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        TransactionAutoConfiguration.class, AopAutoConfiguration.class,
                        IdempotencyStoreAutoConfiguration.class, IdempotencyCoordinatorAutoConfiguration.class,
                        IdempotencyAspectAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(),
                        "spring.datasource.username=postgres", "idempotency.store=postgres")
                .withBean(Orders.class, Orders::new);
    }

    @Test
    void onTheStoresDataSourceAndTransactionManagerItStarts() {
        onPostgres().withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(IdempotencyAdvisor.class).localEffectMethods())
                            .containsExactly("Orders.place");
                });
    }

    @Test
    void aStoreThatIsNotPostgresFailsStartup() {
        memory.withBean(Orders.class, Orders::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("@LocalEffect Orders.place")
                    .hasMessageContaining("needs idempotency.store=postgres")
                    .hasMessageContaining("InMemoryIdempotencyStore");
        });
    }

    @Test
    void withoutLocalEffectMethodsAStoreThatIsNotPostgresIsFine() {
        memory.run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aTransactionManagerOnAnotherDataSourceFailsStartup() {
        onPostgres().withBean("otherTransactions", PlatformTransactionManager.class,
                () -> new DataSourceTransactionManager(new DriverManagerDataSource(postgres.jdbcUrl(), "postgres", "")))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .hasMessageContaining("@LocalEffect Orders.place")
                            .hasMessageContaining("must manage the DataSource the PostgreSQL store runs on");
                });
    }

    @Test
    void noTransactionManagerFailsStartup() {
        onPostgres().run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("needs one PlatformTransactionManager");
        });
    }

    @Test
    void aTransactionManagerWithSynchronizationOffFailsStartup() {
        onPostgres().withUserConfiguration(UnsynchronizedTransactions.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .hasMessageContaining("@LocalEffect Orders.place")
                            .hasMessageContaining("SYNCHRONIZATION_NEVER");
                });
    }

    @Test
    void aTransactionalOfItsOwnThatWouldNotJoinFailsWhenTheProxyIsMade() {
        memory.withBean(RequiresNew.class, RequiresNew::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("@LocalEffect RequiresNew.place")
                    .hasMessageContaining("REQUIRES_NEW");
        });
    }

    @Test
    void anIsolationOtherThanReadCommittedFailsWhenTheProxyIsMade() {
        memory.withBean(Serializable.class, Serializable::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("@LocalEffect Serializable.place")
                    .hasMessageContaining("SERIALIZABLE").hasMessageContaining("READ COMMITTED");
        });
    }

    @Test
    void aMethodThatReturnsAStageFailsWhenTheProxyIsMade() {
        memory.withBean(Staged.class, Staged::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("@LocalEffect Staged.place")
                    .hasMessageContaining("returns a stage");
        });
    }

    @Test
    void withTheAdviceInsideItsOwnTransactionalEveryCallIsRefusedBeforeAnythingIsReserved() {
        onPostgres().withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
                .withPropertyValues("idempotency.aspect.order=" + Ordered.LOWEST_PRECEDENCE)
                .withUserConfiguration(TransactionsFirst.class)
                .withBean(Joining.class, Joining::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String key = "inside-" + UUID.randomUUID();
                    assertThatThrownBy(() -> context.getBean(Joining.class).place(key, "book"))
                            .isInstanceOf(IllegalTransactionStateException.class)
                            .hasMessageContaining("@LocalEffect Joining.place");
                    assertThat(context.getBean(IdempotencyStore.class).lookup("orders.join:" + key)).isEmpty();
                });
    }

    @Test
    void aPackagePrivateMethodsTransactionalThatWouldNotJoinFailsWhenTheProxyIsMade() {
        memory.withBean(PackagePrivateRequiresNew.class, PackagePrivateRequiresNew::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("@LocalEffect PackagePrivateRequiresNew.place")
                    .hasMessageContaining("REQUIRES_NEW");
        });
    }

    @Test
    void aProtectedMethodsTransactionalIsReadAsTheApplicationsTransactionAdviceReadsIt() {
        onPostgres().withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
                .withBean(ProtectedNotSupported.class, ProtectedNotSupported::new)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .hasMessageContaining("@LocalEffect ProtectedNotSupported.place")
                            .hasMessageContaining("NOT_SUPPORTED");
                });
    }

    @Test
    void aTransactionAttributeSourceOfTheApplicationsOwnIsTheOneChecked() {
        RuleBasedTransactionAttribute requiresNew = new RuleBasedTransactionAttribute();
        requiresNew.setPropagationBehavior(Propagation.REQUIRES_NEW.value());
        NameMatchTransactionAttributeSource byName = new NameMatchTransactionAttributeSource();
        byName.setNameMap(Map.of("place", requiresNew));
        memory.withBean(TransactionAttributeSource.class, () -> byName)
                .withBean(Orders.class, Orders::new)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .hasMessageContaining("@LocalEffect Orders.place")
                            .hasMessageContaining("REQUIRES_NEW");
                });
    }

    @Test
    void aTransactionalNamingAnotherTransactionManagerFailsStartup() {
        onPostgres().withUserConfiguration(TwoTransactionManagers.class)
                .withBean(NamesOther.class, NamesOther::new)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("@LocalEffect NamesOther.place")
                            .hasMessageContaining("names the transaction manager 'otherTransactions'");
                });
    }

    @Test
    void aTransactionalNamingNoTransactionManagerThatExistsFailsStartup() {
        onPostgres().withUserConfiguration(TwoTransactionManagers.class)
                .withBean(NamesNone.class, NamesNone::new)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                            .hasMessageContaining("@LocalEffect NamesNone.place")
                            .hasMessageContaining("'nowhere', which is no bean here");
                });
    }

    @Test
    void aTransactionalNamingTheStoresTransactionManagerStarts() {
        onPostgres().withUserConfiguration(TwoTransactionManagers.class)
                .withBean(NamesBound.class, NamesBound::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(IdempotencyAdvisor.class).localEffectMethods())
                            .contains("NamesBound.place");
                });
    }

    @Test
    void idempotentOnTheInterfaceAndLocalEffectOnTheImplementationIsALocalEffect() {
        onPostgres().withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
                .withBean(LocalEffectOnTheImplementation.class, LocalEffectOnTheImplementation::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(IdempotencyAdvisor.class).localEffectMethods())
                            .contains("IdempotentOrders.place");
                    String key = "interface-" + UUID.randomUUID();
                    assertThat(context.getBean(IdempotentOrders.class).place(key, "book"))
                            .isEqualTo("@LocalEffect IdempotentOrders.place");
                    assertThat(context.getBean(IdempotencyStore.class).lookup("orders.interface:" + key))
                            .get().isInstanceOf(dev.idemlab.idempotency.spi.IdempotencyRecord.Completed.class);
                });
    }

    @Test
    void localEffectOnTheInterfaceAndIdempotentOnTheImplementationIsALocalEffect() {
        onPostgres().withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
                .withBean(IdempotentImplementation.class, IdempotentImplementation::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(IdempotencyAdvisor.class).localEffectMethods())
                            .contains("IdempotentImplementation.place");
                    String key = "implementation-" + UUID.randomUUID();
                    assertThat(context.getBean(LocalEffectOrders.class).place(key, "book"))
                            .isEqualTo("@LocalEffect IdempotentImplementation.place");
                });
    }

    @Test
    void aLocalEffectWithoutIdempotentFailsWhenTheProxyIsMade() {
        memory.withBean(NotIdempotent.class, NotIdempotent::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("@LocalEffect NotIdempotent.place")
                    .hasMessageContaining("carries @Idempotent");
        });
    }

    @Test
    void aLocalEffectOnAnInterfaceWithoutIdempotentAnywhereFailsWhenTheProxyIsMade() {
        memory.withBean(NotIdempotentImplementation.class, NotIdempotentImplementation::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("@LocalEffect NotIdempotentImplementation.place")
                    .hasMessageContaining("carries @Idempotent");
        });
    }

    /** The store's transaction manager, with transaction synchronization off. */
    @Configuration(proxyBeanMethods = false)
    static class UnsynchronizedTransactions {

        @Bean
        DataSourceTransactionManager unsynchronized(DataSource dataSource) {
            DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
            manager.setTransactionSynchronization(DataSourceTransactionManager.SYNCHRONIZATION_NEVER);
            return manager;
        }
    }

    /** The store's transaction manager, primary, and another on a DataSource of its own. */
    @Configuration(proxyBeanMethods = false)
    static class TwoTransactionManagers {

        @Bean
        @Primary
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        DataSourceTransactionManager otherTransactions() {
            return new DataSourceTransactionManager(new DriverManagerDataSource(postgres.jdbcUrl(), "postgres", ""));
        }
    }

    public static class PackagePrivateRequiresNew {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class ProtectedNotSupported {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional(propagation = Propagation.NOT_SUPPORTED)
        protected Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class NamesOther {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional(transactionManager = "otherTransactions")
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class NamesNone {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional("nowhere")
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class NamesBound {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional("transactionManager")
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public interface IdempotentOrders {
        @Idempotent(operation = "orders.interface")
        String place(@IdempotencyKey String key, String sku);
    }

    /** Answers the name of the transaction it runs in: the advice's, if it is a local effect. */
    public static class LocalEffectOnTheImplementation implements IdempotentOrders {
        @Override
        @LocalEffect
        public String place(String key, String sku) {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }
    }

    public interface LocalEffectOrders {
        @LocalEffect
        String place(String key, String sku);
    }

    public static class IdempotentImplementation implements LocalEffectOrders {
        @Override
        @Idempotent(operation = "orders.implementation")
        public String place(@IdempotencyKey String key, String sku) {
            return TransactionSynchronizationManager.getCurrentTransactionName();
        }
    }

    public static class NotIdempotent {
        @LocalEffect
        public Long place(String key, String sku) {
            return 1L;
        }
    }

    public static class NotIdempotentImplementation implements LocalEffectOrders {
        @Override
        public String place(String key, String sku) {
            return "no key reserved";
        }
    }

    /** The transaction advisor before the idempotency advice. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionsFirst {
    }

    public static class Joining {
        @Idempotent(operation = "orders.join")
        @LocalEffect
        @Transactional
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    /** A local effect with nothing wrong in it. */
    public static class Orders {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class RequiresNew {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class Serializable {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        @Transactional(isolation = Isolation.SERIALIZABLE)
        public Long place(@IdempotencyKey String key, String sku) {
            return 1L;
        }
    }

    public static class Staged {
        @Idempotent(operation = "orders.place")
        @LocalEffect
        public CompletableFuture<Long> place(@IdempotencyKey String key, String sku) {
            return CompletableFuture.completedFuture(1L);
        }
    }
}
