package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The inbox on a real broker and a real PostgreSQL: each record's order row is written in the
 * transaction that completes its key. A consumer that fails after writing its row leaves neither (the
 * row rolls back with the unfinished record), its redelivery writes the row once, and a duplicate of
 * the record (a producer's retry) is acknowledged as a replay with no second row.
 */
class InboxOnPostgresTest {

    private static KafkaFixture fixture;
    private static TestPostgres server;
    private static PostgresIdempotencyStore store;
    private static String orders;
    private static final String PREFIX = "inbox-" + UUID.randomUUID() + ":";

    @BeforeAll
    static void start() throws SQLException {
        fixture = new KafkaFixture();
        server = TestPostgres.provide();
        store = new PostgresIdempotencyStore(PostgresStoreConfig.custom(server.jdbcUrl())
                .credentials(server.user(), server.password())
                .namespacePrefix(PREFIX).build());
        orders = "inbox_orders_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, record_key text NOT NULL, "
                    + "body text NOT NULL)");
        }
    }

    @AfterAll
    static void stop() throws SQLException {
        try {
            if (server != null && orders != null) {
                try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS " + orders);
                }
            }
        } finally {
            if (store != null) {
                store.close();
            }
            if (server != null) {
                server.close();
            }
            if (fixture != null) {
                fixture.close();
            }
        }
    }

    @Test
    void anOrderWrittenBeforeAFailureRollsBackWithItsRecordAndIsWrittenOnceByTheRedelivery() throws Exception {
        String topic = fixture.kafka.createTopic("inbox", 1);
        String group = "inbox-orders";
        fixture.send(topic, "order-42", "{\"order_id\":42,\"amount\":10}");
        AtomicInteger attempts = new AtomicInteger();
        LocalEffects local = LocalEffects.of(store);
        IdempotentRecordHandler<String, String, String> inbox = IdempotentRecordHandler.inbox(
                IdempotencyCoordinator.builder(store).build(), "order.create", RedeliveryOnABrokerTest.ReturnedString.CODEC,
                (TransactionalRecordHandler<String, String, String>) record -> local.inTransaction((connection, context) -> {
                    long id = insertOrder(connection, context.key(), record.value());
                    if (attempts.incrementAndGet() == 1) {
                        throw new IllegalStateException("the consumer failed after writing order " + id);
                    }
                    return "order " + id;
                })).build();

        List<PollSummary> polls = new ArrayList<>();
        try (IdempotentConsumer<String, String> loop = IdempotentConsumer.of(fixture.consumer(group, Map.of()), inbox)) {
            loop.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                polls.add(loop.poll(Duration.ofMillis(50)));
                return fixture.committed(group, topic) == 1;
            });
            assertThat(polls).as("the first handling failed and was not acknowledged")
                    .anyMatch(poll -> !poll.failures().isEmpty());
            assertThat(attempts).hasValue(2);
            assertThat(orderRows("order-42")).as("the failed handling's row rolled back with its record").isEqualTo(1);

            // The producer sends the record again (its retry after a lost acknowledgement): a replay.
            fixture.send(topic, "order-42", "{\"order_id\":42,\"amount\":10}");
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                loop.poll(Duration.ofMillis(50));
                return fixture.committed(group, topic) == 2;
            });
        }
        assertThat(attempts).as("the duplicate was replayed, not handled").hasValue(2);
        assertThat(orderRows("order-42")).isEqualTo(1);
    }

    /**
     * Consumer A's handling wrote its row and is still running when its key is taken over (its lease ran
     * out: a long GC pause, say) by B's handling of the same record, which writes its row and completes.
     * A's completion is then refused, and its row rolls back with it: one order row, B's. An inbox whose
     * effect committed apart from the record would keep A's row too.
     */
    @Test
    void aHandlingWhoseKeyWasTakenOverCommitsNeitherItsOrderNorItsRecord() throws Exception {
        LocalEffects local = LocalEffects.of(store);
        CountDownLatch aWrote = new CountDownLatch(1);
        CountDownLatch aGoesOn = new CountDownLatch(1);
        AtomicInteger handlings = new AtomicInteger();
        IdempotentRecordHandler<String, String, String> inbox = IdempotentRecordHandler.inbox(
                IdempotencyCoordinator.builder(store).build(), "order.fenced", RedeliveryOnABrokerTest.ReturnedString.CODEC,
                (TransactionalRecordHandler<String, String, String>) record -> local.inTransaction((connection, context) -> {
                    long id = insertOrder(connection, context.key(), record.value());
                    if (handlings.incrementAndGet() == 1) {
                        aWrote.countDown();
                        assertThat(aGoesOn.await(30, TimeUnit.SECONDS)).isTrue();
                    }
                    return "order " + id;
                })).build();
        ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 0, 7, null, "{\"order_id\":7}");
        record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, "order-7".getBytes(StandardCharsets.UTF_8));

        CompletableFuture<Object> a = CompletableFuture.supplyAsync(() -> {
            try {
                return inbox.process(record);
            } catch (Exception e) {
                return e;
            }
        });
        assertThat(aWrote.await(30, TimeUnit.SECONDS)).as("A wrote its row").isTrue();
        expireRecords();
        RecordResult<String> b = inbox.process(record);
        aGoesOn.countDown();

        assertThat(b.outcome()).isEqualTo(RecordOutcome.HANDLED);
        assertThat(a.get(30, TimeUnit.SECONDS)).isInstanceOf(IdempotencyFencedException.class);
        assertThat(orderRows("order-7")).as("B's row alone").isEqualTo(1);
    }

    /** Ends the leases of this test's records now, by the server's clock, as a holder's long pause would. */
    private static void expireRecords() throws SQLException {
        try (Connection connection = server.connect(); PreparedStatement expire = connection.prepareStatement(
                "UPDATE " + store.config().table() + " SET expires_at = now() - interval '1 second' WHERE namespace LIKE ?")) {
            expire.setString(1, PREFIX + "%");
            assertThat(expire.executeUpdate()).isPositive();
        }
    }

    private static long insertOrder(Connection connection, String key, String body) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + orders + " (record_key, body) VALUES (?, ?) RETURNING id")) {
            insert.setString(1, key);
            insert.setString(2, body);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static int orderRows(String key) throws SQLException {
        try (Connection connection = server.connect();
             PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM " + orders + " WHERE record_key = ?")) {
            count.setString(1, key);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}
