package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
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
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code @Idempotent} advice against {@code @Transactional}, on a real PostgreSQL whose one
 * database holds both the orders and the idempotency records. The business transaction fails at
 * commit (a deferred foreign key), after the method returned: only the order of the two advices
 * decides whether a completion is stored for a transaction that rolled back.
 */
class TransactionOrderTest {

    private static LocalPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = LocalPostgres.start();
        new JdbcTemplate(new org.springframework.jdbc.datasource.DriverManagerDataSource(postgres.jdbcUrl(),
                postgres.user(), postgres.password())).execute("""
                create table orders (order_id text primary key, amount bigint not null);
                create table order_audit_parent (order_id text primary key);
                create table order_audit (order_id text not null references order_audit_parent (order_id)
                    deferrable initially deferred);
                """);
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, AopAutoConfiguration.class,
                        IdempotencyStoreAutoConfiguration.class, IdempotencyCoordinatorAutoConfiguration.class,
                        IdempotencyAspectAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(),
                        "spring.datasource.username=postgres", "idempotency.store=postgres")
                .withUserConfiguration(OrdersConfiguration.class);
    }

    @Test
    void outsideTheTransactionARolledBackOrderLeavesNoRecordAndTheRetryPlacesItOnce() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            String order = UUID.randomUUID().toString();
            String key = "key-" + order;

            orders.failAtCommit(true);
            assertThatThrownBy(() -> orders.place(key, order, 10)).isInstanceOf(RuntimeException.class);
            assertThat(store.lookup("order.place:" + key)).isEmpty();
            assertThat(countOf(jdbc, order)).isZero();

            orders.failAtCommit(false);
            PlacedOrder placed = orders.place(key, order, 10);
            PlacedOrder replayed = orders.place(key, order, 10);
            assertThat(replayed).isEqualTo(placed);
            assertThat(orders.runs()).isEqualTo(2);
            assertThat(countOf(jdbc, order)).isEqualTo(1);
            assertThat(store.lookup("order.place:" + key)).get().isInstanceOf(IdempotencyRecord.Completed.class);
            assertThat(context.getBean(TransactionOrderCheck.class).warning()).isEmpty();
        });
    }

    /**
     * Ordered the wrong way, the advice finds the method's own transaction active, and the record follows
     * it as it follows a caller's ({@link OuterTransactionCompletion}): before issue 39 the result was stored
     * before the commit, and the retry replayed an order that did not exist. The startup WARN stays, for the
     * methods whose own transaction does not join (REQUIRES_NEW), which are still stored before it commits.
     */
    @Test
    void insideTheTransactionARolledBackOrderReleasesTheKeyAsWellAndTheRetryPlacesItOnce() {
        runner().withPropertyValues("idempotency.aspect.order=" + Ordered.LOWEST_PRECEDENCE)
                .withUserConfiguration(TransactionsFirst.class)
                .run(context -> {
                    Orders orders = context.getBean(Orders.class);
                    IdempotencyStore store = context.getBean(IdempotencyStore.class);
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    String order = UUID.randomUUID().toString();
                    String key = "key-" + order;

                    orders.failAtCommit(true);
                    assertThatThrownBy(() -> orders.place(key, order, 10)).isInstanceOf(RuntimeException.class);
                    assertThat(store.lookup("order.place:" + key)).isEmpty();
                    assertThat(countOf(jdbc, order)).isZero();

                    orders.failAtCommit(false);
                    PlacedOrder placed = orders.place(key, order, 10);
                    assertThat(orders.place(key, order, 10)).isEqualTo(placed);
                    assertThat(orders.runs()).isEqualTo(2);
                    assertThat(countOf(jdbc, order)).isEqualTo(1);
                    assertThat(context.getBean(TransactionOrderCheck.class).warning()).get().asString()
                            .contains("idempotency.aspect.order");
                });
    }

    private static int countOf(JdbcTemplate jdbc, String order) {
        Integer count = jdbc.queryForObject("select count(*) from orders where order_id = ?", Integer.class, order);
        return count == null ? 0 : count;
    }

    /** What placing an order answers. */
    public record PlacedOrder(String orderId, long amount) { }

    /** Places an order in one business transaction; the audit row's foreign key is checked at commit. */
    public static class Orders {

        // State behind methods: the test holds the bean's proxy, whose own fields are not the target's.
        private final AtomicInteger runs = new AtomicInteger();
        private volatile boolean failAtCommit;
        private final JdbcTemplate jdbc;

        public Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Idempotent(operation = "order.place", fingerprint = {"orderId", "amount"})
        @Transactional
        public PlacedOrder place(@IdempotencyKey String key, String orderId, long amount) {
            runs.incrementAndGet();
            jdbc.update("insert into orders (order_id, amount) values (?, ?)", orderId, amount);
            if (failAtCommit) {
                jdbc.update("insert into order_audit (order_id) values (?)", orderId);
            }
            return new PlacedOrder(orderId, amount);
        }

        /** Whether the next orders add an audit row whose foreign key fails at commit. */
        public void failAtCommit(boolean fail) {
            failAtCommit = fail;
        }

        /** How many times {@link #place} ran. */
        public int runs() {
            return runs.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        Orders orders(JdbcTemplate jdbc) {
            return new Orders(jdbc);
        }
    }

    /** The transaction advisor before the idempotency advice: the wrong order, on purpose. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionsFirst {
    }
}
