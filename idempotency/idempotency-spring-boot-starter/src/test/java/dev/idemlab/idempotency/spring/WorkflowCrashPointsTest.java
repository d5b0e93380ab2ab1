package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.spring.Checkout.Charging;
import dev.idemlab.idempotency.store.postgres.StepOutcomeUnknownException;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Workflows through the starter, crashed for real: {@link Checkout}'s holder runs the Spring Boot
 * application in a child JVM and is killed with SIGKILL at each step boundary (after {@code order_created},
 * after the charge answered and before {@code charge_created}'s recovery point, after
 * {@code charge_created}, after {@code order_paid}); then a retry with the same key, on another instance of
 * the application (this JVM's), finishes the order. Every assertion reads what landed: the orders table
 * and the providers' ledgers. At the provider that deduplicates on the downstream key, the default policy
 * leaves one order and one charge at every boundary; at one that does not, killed between the charge and
 * its recovery point, {@code ASK_FIRST} charges once and {@code STOP} answers every retry "unknown outcome
 * at step charge_created" and charges nothing more. One PostgreSQL and one set of providers for the class;
 * the holders of all its tests are started together in its setup, so that their JVMs start side by side
 * rather than one after the other, and each is killed the moment it stands at its point, so that their
 * leases run out side by side too; each test then reads its own crash.
 */
class WorkflowCrashPointsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final List<String> BOUNDARIES = List.of("order_created", Checkout.CHARGE_ANSWERED, "charge_created",
            "order_paid");

    private static final List<AutoCloseable> started = new ArrayList<>();
    private static LocalPostgres postgres;
    private static FakePaymentProvider payments;
    private static FakePaymentProvider legacyPayments;
    private static FakePaymentProvider mailer;
    private static List<String> applicationArgs;
    private static Checkout retry;
    private static JdbcTemplate jdbc;

    /** Each test's holder, by {@link #crashName}: started together, so that their JVMs start side by side. */
    private static final Map<String, Crash> crashes = new LinkedHashMap<>();

    /** A holder that places {@code orderRef} under {@code key} and stops at {@code point}. */
    private record Crash(String key, String orderRef, String point, CheckoutHolder holder) { }

    @BeforeAll
    static void startTheServersTheHoldersAndAnInstanceForRetries() throws Exception {
        try {
            postgres = LocalPostgres.start();
            started.add(postgres);
            try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), "postgres", "postgres");
                 Statement statement = connection.createStatement()) {
                // No unique key on the order on purpose: a second order placed by a retry must show.
                statement.execute("create table " + Checkout.TABLE + " (id bigserial primary key, order_ref text "
                        + "not null, amount bigint not null, status text not null, charge_id text)");
            }
            payments = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
            legacyPayments = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(false).build();
            mailer = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
            applicationArgs = List.of("--spring.datasource.url=" + postgres.jdbcUrl(),
                    "--spring.datasource.username=postgres", "--spring.datasource.password=postgres",
                    "--checkout.payments-url=" + serve(payments), "--checkout.legacy-payments-url=" + serve(legacyPayments),
                    "--checkout.mailer-url=" + serve(mailer));
            // This instance first: the providers it serves then answer the holders at once.
            ConfigurableApplicationContext context = CheckoutApplication.start(null, applicationArgs.toArray(String[]::new));
            started.add(context);
            retry = context.getBean(Checkout.class);
            jdbc = context.getBean(JdbcTemplate.class);
            for (String boundary : BOUNDARIES) {
                startHolder(Charging.DEDUPLICATED, boundary);
            }
            startHolder(Charging.ASKING_FIRST, Checkout.CHARGE_ANSWERED);
            startHolder(Charging.STOPPING, Checkout.CHARGE_ANSWERED);
        } catch (Exception | Error e) {
            stopEverything();
            throw e;
        }
    }

    private static void startHolder(Charging charging, String point) throws Exception {
        String key = UUID.randomUUID().toString();
        String orderRef = "order-" + UUID.randomUUID();
        CheckoutHolder holder = CheckoutHolder.start(charging, key, orderRef, point, applicationArgs);
        started.add(holder);
        crashes.put(crashName(charging, point), new Crash(key, orderRef, point, holder));
    }

    private static String crashName(Charging charging, String point) {
        return charging + " at " + point;
    }

    private static String serve(FakePaymentProvider provider) {
        ProviderService service = ProviderService.start(provider);
        started.add(service);
        return service.uri().toString();
    }

    @AfterAll
    static void stopEverything() throws Exception {
        Exception first = null;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        started.clear();
        crashes.clear();
        if (first != null) {
            throw first;
        }
    }

    @ParameterizedTest(name = "killed after {0}")
    @ValueSource(strings = {"order_created", Checkout.CHARGE_ANSWERED, "charge_created", "order_paid"})
    void aHolderKilledAtAStepBoundaryLeavesOneOrderAndOneChargeOnceARetryFinishes(String boundary) throws Exception {
        Crash crash = kill(Charging.DEDUPLICATED, boundary);
        String key = crash.key();
        String orderRef = crash.orderRef();

        Workflow.Progress finished = (Workflow.Progress) retry(key, orderRef, Charging.DEDUPLICATED);
        Object replayed = retry(key, orderRef, Charging.DEDUPLICATED);

        assertThat(finished.outputs()).containsOnlyKeys("order_created", "charge_created", "order_paid", "receipt_sent");
        assertThat(replayed).as("a retry after completion replays").isEqualTo(finished);
        assertThat(orders(orderRef)).as("the orders table").containsExactly(
                Map.of("id", Long.parseLong(finished.output("order_created")), "status", "paid",
                        "charge_id", finished.output("charge_created")));
        List<Charge> charges = chargesOf(payments, orderRef);
        assertThat(charges).as("the provider's ledger").extracting(Charge::id)
                .containsExactly(finished.output("charge_created"));
        assertThat(charges.get(0).idempotencyKey()).as("charged with the step's own downstream key")
                .endsWith(":charge_created");
        assertThat(chargesOf(mailer, orderRef)).as("the mailer's ledger").extracting(Charge::id)
                .containsExactly(finished.output("receipt_sent"));
    }

    @Test
    void askFirstKilledBetweenTheChargeAndItsRecoveryPointChargesOnceAtAProviderThatDoesNotDeduplicate()
            throws Exception {
        Crash crash = kill(Charging.ASKING_FIRST, Checkout.CHARGE_ANSWERED);
        String key = crash.key();
        String orderRef = crash.orderRef();
        List<Charge> chargedByTheKilledHolder = chargesOf(legacyPayments, orderRef);
        Workflow.Progress finished = (Workflow.Progress) retry(key, orderRef, Charging.ASKING_FIRST);

        assertThat(chargedByTheKilledHolder).as("the killed holder's charge landed").hasSize(1);
        assertThat(chargesOf(legacyPayments, orderRef)).as("the ledger of the provider that does not deduplicate")
                .isEqualTo(chargedByTheKilledHolder);
        assertThat(finished.output("charge_created")).as("the charge the lookup found")
                .isEqualTo(chargedByTheKilledHolder.get(0).id());
        assertThat(orders(orderRef)).containsExactly(Map.of("id", Long.parseLong(finished.output("order_created")),
                "status", "paid", "charge_id", chargedByTheKilledHolder.get(0).id()));
    }

    @Test
    void stopKilledBetweenTheChargeAndItsRecoveryPointAnswersUnknownOutcomeToEveryRetryAndChargesNoMore()
            throws Exception {
        Crash crash = kill(Charging.STOPPING, Checkout.CHARGE_ANSWERED);
        String key = crash.key();
        String orderRef = crash.orderRef();
        List<Charge> chargedByTheKilledHolder = chargesOf(legacyPayments, orderRef);
        Object first = retry(key, orderRef, Charging.STOPPING);
        Object second = retry(key, orderRef, Charging.STOPPING);

        for (Object answer : List.of(first, second)) {
            assertThat(answer).isInstanceOf(StepOutcomeUnknownException.class);
            assertThat(((StepOutcomeUnknownException) answer).phase()).isEqualTo("charge_created");
        }
        assertThat(chargedByTheKilledHolder).as("the killed holder's charge landed").hasSize(1);
        assertThat(chargesOf(legacyPayments, orderRef)).as("no second charge").isEqualTo(chargedByTheKilledHolder);
        assertThat(orders(orderRef)).as("the order, created and never paid").singleElement()
                .satisfies(order -> assertThat(order).containsEntry("status", "created"));
    }

    /** The crash, once its holder was killed with SIGKILL where it stood at its point. */
    private static Crash kill(Charging charging, String point) throws Exception {
        Crash crash = crashes.get(crashName(charging, point));
        assertThat(crash.holder().awaitKilledAtItsPoint()).as("the exit code of a JVM killed with SIGKILL")
                .isEqualTo(137);
        return crash;
    }

    /**
     * The retry's answer: the steps' outputs, or what it threw. An ask-first step answers "in progress"
     * while a call of the killed holder could still land; the retry then comes again, as a client does.
     */
    private static Object retry(String key, String orderRef, Charging charging) {
        AtomicReference<Object> answer = new AtomicReference<>();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
            try {
                answer.set(retry.place(key, orderRef, charging));
            } catch (IdempotencyInProgressException inProgress) {
                return false;
            } catch (Exception other) {
                answer.set(other);
            }
            return true;
        });
        return answer.get();
    }

    private static List<Charge> chargesOf(FakePaymentProvider provider, String orderRef) {
        return provider.ledger().stream().filter(charge -> charge.orderId().equals(orderRef)).toList();
    }

    private static List<Map<String, Object>> orders(String orderRef) {
        return jdbc.queryForList("select id, status, charge_id from " + Checkout.TABLE + " where order_ref = ?",
                orderRef);
    }
}
