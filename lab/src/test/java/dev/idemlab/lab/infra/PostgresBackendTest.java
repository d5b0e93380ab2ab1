package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Provisioning, isolation and outages of the PostgreSQL backend, on a private bundled server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresBackendTest {

    private static final Fingerprint FINGERPRINT = Fingerprint.ofFields(Map.of("order_id", "o-1", "amount", 10));

    private PostgresBackend backend;

    @BeforeAll
    void startServer() {
        backend = PostgresBackend.open(new ProvisioningOptions(null, null, null, Origin.BUNDLED));
    }

    @AfterAll
    void stopServer() {
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void saysWhichServerWhichVersionAndWhereItCameFrom() {
        ServerInfo server = backend.server();
        assertThat(server.store()).isEqualTo("postgres");
        assertThat(server.origin()).isEqualTo(Origin.BUNDLED);
        assertThat(server.address()).startsWith("127.0.0.1:");
        assertThat(server.version()).matches("\\d+(\\.\\d+)*.*");
        assertThat(StoreBackends.NAMES).contains("postgres");
    }

    @Test
    void aBundledServerIsFastUnlessAskedToBeDurableAndThenKeepsEveryCommit() {
        assertThat(backend.server().durability()).isEqualTo("fsync=off, synchronous_commit=off");
        try (PostgresBackend durable = PostgresBackend.open(
                new ProvisioningOptions(null, null, null, Origin.BUNDLED).withDurable(true))) {
            // Read back from the server itself: the bundled launcher's own -F must not win.
            assertThat(durable.server().durability()).isEqualTo("fsync=on, synchronous_commit=on");
        }
    }

    @Test
    void eachStoreGetsItsOwnNamespaces() {
        String ns = "payment.charge:" + UUID.randomUUID();
        try (IdempotencyStore first = backend.openStore(); IdempotencyStore second = backend.openStore()) {
            assertThat(first.reserve(ns, "t1", FINGERPRINT.hex(), Duration.ofSeconds(30)))
                    .isInstanceOf(Reservation.Acquired.class);
            assertThat(second.reserve(ns, "t2", FINGERPRINT.hex(), Duration.ofSeconds(30)))
                    .isInstanceOf(Reservation.Acquired.class);
        }
    }

    @Test
    void aStoppedServerFailsOpenFastRunningTheActionAndCountingTheStorageError() {
        try (StoreOutage outage = backend.openOutage()) {
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(outage.store()).build();
            AtomicInteger charges = new AtomicInteger();
            long started = System.nanoTime();
            IdempotentResult<String> result = coordinator.call(call(), ResultCodec.json(String.class),
                    () -> "ch_" + charges.incrementAndGet());
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            // Printed, not asserted: timing belongs in results, not in a test's verdict.
            System.out.println("dead-server call through the coordinator (" + outage.how() + ") took " + tookMillis + " ms");
            assertThat(result.value()).isEqualTo("ch_1");
            assertThat(result.outcome()).isEqualTo(Outcome.FAILED_OPEN);
            assertThat(charges).hasValue(1);
            assertThat(coordinator.stats().storageErrors().get(StorePhase.RESERVE)).isEqualTo(1);

            // The circuit is open now: the next calls fail open without waiting on the dead server.
            int more = 20;
            long next = System.nanoTime();
            for (int i = 0; i < more; i++) {
                coordinator.call(call(), ResultCodec.json(String.class), () -> "ch_" + charges.incrementAndGet());
            }
            long perCallMicros = (System.nanoTime() - next) / 1_000 / more;
            System.out.printf("dead-server calls after the first failure (%s): %d.%03d ms each over %d calls%n",
                    outage.how(), perCallMicros / 1000, perCallMicros % 1000, more);
            assertThat(coordinator.stats().count(Outcome.FAILED_OPEN)).isEqualTo(1 + more);
        }
    }

    @Test
    void aStoppedServerFailsClosedWithoutRunningTheAction() {
        try (StoreOutage outage = backend.openOutage()) {
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(outage.store())
                    .config(IdempotencyConfig.custom().storeFailureMode(StoreFailureMode.FAIL_CLOSED).build())
                    .build();
            AtomicInteger charges = new AtomicInteger();
            assertThatThrownBy(() -> coordinator.execute(call(), ResultCodec.json(String.class),
                    () -> "ch_" + charges.incrementAndGet()))
                    .isInstanceOf(IdempotencyStoreUnavailableException.class);
            assertThat(charges).hasValue(0);
            assertThat(coordinator.stats().count(Outcome.FAILED_CLOSED)).isEqualTo(1);
        }
    }

    @Test
    void anOutageOfAServerGivenByUrlNeverStopsThatServer() {
        String url = "jdbc:postgresql://" + backend.server().address() + "/postgres?user=postgres";
        try (PostgresBackend given = PostgresBackend.open(new ProvisioningOptions(null, null, url, null))) {
            assertThat(given.server().origin()).isEqualTo(Origin.URL);
            try (StoreOutage outage = given.openOutage()) {
                assertThat(outage.how()).contains("nothing listens");
                IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(outage.store()).build();
                AtomicInteger charges = new AtomicInteger();
                coordinator.execute(call(), ResultCodec.json(String.class), () -> "ch_" + charges.incrementAndGet());
                assertThat(charges).hasValue(1);
                assertThat(coordinator.stats().totalStorageErrors()).isEqualTo(1);
            }
            try (IdempotencyStore store = given.openStore()) {
                assertThat(store.lookup("payment.charge:still-up")).isEmpty();
            }
        }
    }

    @Test
    void aProbeThatFailsLeavesNoConnectionPoolBehind() throws Exception {
        // Something listens, but it is not PostgreSQL: the connect check passes, the probe fails.
        try (java.net.ServerSocket notPostgres = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!notPostgres.isClosed()) {
                    try (java.net.Socket socket = notPostgres.accept()) {
                        socket.getOutputStream().write("not postgres\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "not-postgres");
            acceptor.setDaemon(true);
            acceptor.start();
            java.util.Set<Thread> poolThreadsBefore = poolThreads(); // other tests' pools may still be closing
            String url = "jdbc:postgresql://127.0.0.1:" + notPostgres.getLocalPort() + "/db";
            assertThatThrownBy(() -> PostgresBackend.open(new ProvisioningOptions(null, null, url, null)))
                    .isInstanceOf(ProvisioningException.class).hasMessageContaining("does not answer");
            assertThat(poolThreads()).as("threads of a connection pool this probe opened").isSubsetOf(poolThreadsBefore);
        }
    }

    private static java.util.Set<Thread> poolThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().contains("housekeeper"))
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void anOriginPostgresCannotComeFromIsRefusedClearly() {
        assertThatThrownBy(() -> PostgresBackend.open(new ProvisioningOptions(null, null, null, Origin.IN_PROCESS)))
                .isInstanceOf(ProvisioningException.class)
                .hasMessageContaining("url, bundled or container");
    }

    @Test
    void forcingTheUrlOriginWithoutAUrlIsRefusedClearly() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(ProvisioningOptions.PG_URL_ENV) == null);
        assertThatThrownBy(() -> PostgresBackend.open(new ProvisioningOptions(null, null, null, Origin.URL)))
                .isInstanceOf(ProvisioningException.class)
                .hasMessageContaining(ProvisioningOptions.PG_URL_ENV);
    }

    private static IdempotentCall call() {
        return IdempotentCall.of("payment.charge", UUID.randomUUID().toString(), FINGERPRINT);
    }
}
