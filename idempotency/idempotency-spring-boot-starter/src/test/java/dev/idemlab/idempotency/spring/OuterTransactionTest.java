package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 7a, confirmed: an {@code @Idempotent} method (not a {@code @LocalEffect}) called inside
 * its caller's {@code @Transactional} had its record completed on the store's own connection when it
 * returned, so a caller that rolled back afterwards left a completed record, and the retry replayed an
 * order that was never committed. Now the record follows the caller's transaction: completed after it
 * commits, released when it rolls back. On a real PostgreSQL that holds both the orders and the records;
 * the orders table and the store's record are what is asserted.
 */
class OuterTransactionTest {

    private static LocalPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = LocalPostgres.start();
        new JdbcTemplate(new DriverManagerDataSource(postgres.jdbcUrl(), postgres.user(), postgres.password()))
                .execute("create table orders (order_id text primary key, amount bigint not null)");
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
                .withUserConfiguration(Beans.class);
    }

    @Test
    void aCallerThatRollsBackAfterTheCallReleasesTheKeyAndTheRetryPlacesTheOrderOnceThenReplaysIt() {
        runner().run(context -> {
            Checkout checkout = context.getBean(Checkout.class);
            Orders orders = context.getBean(Orders.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            String order = UUID.randomUUID().toString();
            String key = "key-" + order;

            assertThatThrownBy(() -> checkout.placeThenFail(key, order)).hasMessageContaining("after the call");
            assertThat(countOf(jdbc, order)).as("the order rolled back with its caller").isZero();
            assertThat(store.lookup("order.place:" + key)).as("the key is free again").isEmpty();

            PlacedOrder placed = checkout.place(key, order);
            PlacedOrder replayed = checkout.place(key, order);
            assertThat(replayed).isEqualTo(placed);
            assertThat(orders.runs()).isEqualTo(2);
            assertThat(countOf(jdbc, order)).isEqualTo(1);
            assertThat(store.lookup("order.place:" + key)).get().isInstanceOf(IdempotencyRecord.Completed.class);
        });
    }

    @Test
    void aCallerMarkedRollbackOnlyReleasesTheKeyToo() {
        runner().run(context -> {
            Checkout checkout = context.getBean(Checkout.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            String order = UUID.randomUUID().toString();
            String key = "key-" + order;

            checkout.placeThenRollBackQuietly(key, order);
            assertThat(countOf(context.getBean(JdbcTemplate.class), order)).isZero();
            assertThat(store.lookup("order.place:" + key)).isEmpty();
        });
    }

    @Test
    void aMethodInATransactionOfItsOwnIsCompletedAtOnceSinceItsOrderCommittedWhateverTheCallerDoes() {
        runner().run(context -> {
            Checkout checkout = context.getBean(Checkout.class);
            Orders orders = context.getBean(Orders.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            String order = UUID.randomUUID().toString();
            String key = "key-" + order;

            assertThatThrownBy(() -> checkout.placeApartThenFail(key, order)).hasMessageContaining("after the call");
            assertThat(countOf(context.getBean(JdbcTemplate.class), order)).isEqualTo(1);
            assertThat(store.lookup("order.apart:" + key)).get().isInstanceOf(IdempotencyRecord.Completed.class);
            assertThat(orders.placeApart(key, order, 10)).isEqualTo(new PlacedOrder(order, 10));
            assertThat(orders.runs()).as("the retry replays the committed order").isEqualTo(1);
        });
    }

    @Test
    void theSameKeyTwiceInOneTransactionReplaysThePendingOrderAndAnotherRequestUnderItIsRefused() {
        runner().run(context -> {
            Checkout checkout = context.getBean(Checkout.class);
            Orders orders = context.getBean(Orders.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            String order = UUID.randomUUID().toString();
            String key = "key-" + order;

            List<PlacedOrder> placed = checkout.placeTwice(key, order);
            assertThat(placed).containsExactly(new PlacedOrder(order, 10), new PlacedOrder(order, 10));
            assertThat(orders.runs()).isEqualTo(1);
            assertThat(countOf(context.getBean(JdbcTemplate.class), order)).isEqualTo(1);
            assertThat(store.lookup("order.place:" + key)).get().isInstanceOf(IdempotencyRecord.Completed.class);

            String other = UUID.randomUUID().toString();
            assertThatThrownBy(() -> checkout.placeThenPlaceAnother("key-" + other, other))
                    .isInstanceOf(IdempotencyKeyReuseException.class);
            assertThat(countOf(context.getBean(JdbcTemplate.class), other)).isZero();
            assertThat(store.lookup("order.place:key-" + other)).isEmpty();
        });
    }

    private static int countOf(JdbcTemplate jdbc, String order) {
        Integer count = jdbc.queryForObject("select count(*) from orders where order_id = ?", Integer.class, order);
        return count == null ? 0 : count;
    }

    /** What placing an order answers. */
    public record PlacedOrder(String orderId, long amount) { }

    /** Places an order; its writes join the transaction it is called in. */
    public static class Orders {

        private final AtomicInteger runs = new AtomicInteger();
        private final JdbcTemplate jdbc;

        public Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Idempotent(operation = "order.place", fingerprint = {"orderId", "amount"})
        @Transactional
        public PlacedOrder place(@IdempotencyKey String key, String orderId, long amount) {
            runs.incrementAndGet();
            jdbc.update("insert into orders (order_id, amount) values (?, ?)", orderId, amount);
            return new PlacedOrder(orderId, amount);
        }

        @Idempotent(operation = "order.apart", fingerprint = {"orderId", "amount"})
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public PlacedOrder placeApart(@IdempotencyKey String key, String orderId, long amount) {
            return place(key, orderId, amount); // a self-call: the insert runs in this method's own transaction
        }

        public int runs() {
            return runs.get();
        }
    }

    /** The caller: a transaction of its own around the idempotent call. */
    public static class Checkout {

        private final Orders orders;

        public Checkout(Orders orders) {
            this.orders = orders;
        }

        @Transactional
        public PlacedOrder place(String key, String orderId) {
            return orders.place(key, orderId, 10);
        }

        @Transactional
        public PlacedOrder placeThenFail(String key, String orderId) {
            orders.place(key, orderId, 10);
            throw new IllegalStateException("the caller failed after the call");
        }

        @Transactional
        public PlacedOrder placeThenRollBackQuietly(String key, String orderId) {
            PlacedOrder placed = orders.place(key, orderId, 10);
            TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
            return placed;
        }

        @Transactional
        public List<PlacedOrder> placeTwice(String key, String orderId) {
            return List.of(orders.place(key, orderId, 10), orders.place(key, orderId, 10));
        }

        @Transactional
        public PlacedOrder placeThenPlaceAnother(String key, String orderId) {
            orders.place(key, orderId, 10);
            return orders.place(key, orderId, 20);
        }

        @Transactional
        public PlacedOrder placeApartThenFail(String key, String orderId) {
            orders.placeApart(key, orderId, 10);
            throw new IllegalStateException("the caller failed after the call");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Orders orders(JdbcTemplate jdbc) {
            return new Orders(jdbc);
        }

        @Bean
        Checkout checkout(Orders orders) {
            return new Checkout(orders);
        }
    }
}
