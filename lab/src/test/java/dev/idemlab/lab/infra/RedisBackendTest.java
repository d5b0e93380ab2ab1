package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Where the lab's Redis comes from, and that what it starts it also stops. */
class RedisBackendTest {

    private static final String FP = "a".repeat(64);
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theBundledBinaryStartsAPrivateServerThatNamesItsVersionAndOrigin() {
        try (RedisBackend backend = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null))) {
            ServerInfo server = backend.server();
            System.out.println("bundled: " + server.describe());
            assertThat(server.store()).isEqualTo("redis");
            assertThat(server.origin()).isEqualTo(Origin.BUNDLED);
            assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+");
            assertThat(server.address()).startsWith("127.0.0.1:");
            assertThat(server.describe()).contains(server.version(), Origin.BUNDLED.description());
        }
    }

    @Test
    void closingTheBackendStopsThePrivateServer() {
        RedisBackend backend = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
        try {
            int port = Integer.parseInt(backend.server().address().substring("127.0.0.1:".length()));
            assertThat(accepts(port)).isTrue();
            backend.close();
            assertThat(accepts(port)).isFalse();
        } finally {
            backend.close(); // a failed assertion above must not leave the server running; closing twice is harmless
        }
    }

    @Test
    void eachStoreHasItsOwnKeyPrefixSoRunsNeverSeeEachOthersRecords() {
        try (RedisBackend backend = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
             IdempotencyStore first = backend.openStore();
             IdempotencyStore second = backend.openStore()) {
            assertThat(first.reserve("payment.charge:k1", "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
            assertThat(second.reserve("payment.charge:k1", "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        }
    }

    @Test
    void anOutageLeavesTheLabsOwnServerRunningAndSaysWhatWasStopped() {
        try (RedisBackend backend = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
             StoreOutage outage = backend.openOutage();
             IdempotencyStore healthy = backend.openStore()) {
            assertThat(outage.how()).contains("stopped").contains(backend.server().address());
            assertThatThrownBy(() -> outage.store().lookup("payment.charge:k1"))
                    .isInstanceOf(IdempotencyStoreException.class);
            assertThat(healthy.lookup("payment.charge:k1")).isEmpty();
        }
    }

    @Test
    void anOutageForAUsersUrlPointsAtADeadPortAndLeavesTheUsersServerAlone() {
        try (RedisBackend privateServer = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
             RedisBackend byUrl = RedisBackend.open(new ProvisioningOptions(privateServer.uri(), null, null, null));
             StoreOutage outage = byUrl.openOutage();
             IdempotencyStore healthy = byUrl.openStore()) {
            assertThat(byUrl.server().origin()).isEqualTo(Origin.URL);
            assertThat(outage.how()).contains("nothing listens").contains("left alone");
            assertThatThrownBy(() -> outage.store().lookup("payment.charge:k1"))
                    .isInstanceOf(IdempotencyStoreException.class);
            assertThat(healthy.lookup("payment.charge:k1")).isEmpty();
        }
    }

    @Test
    void theKeysARunWroteToAUsersRedisAreRemovedAfterItAndOnlyThose() {
        try (RedisBackend privateServer = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
             IdempotencyStore someoneElses = privateServer.openStore()) {
            someoneElses.reserve("payment.charge:theirs", "t0", FP, LEASE);
            try (RedisBackend byUrl = RedisBackend.open(new ProvisioningOptions(privateServer.uri(), null, null, null))) {
                try (IdempotencyStore first = byUrl.openStore(); IdempotencyStore second = byUrl.openStore()) {
                    first.reserve("payment.charge:k1", "t1", FP, LEASE);
                    second.reserve("payment.charge:k2", "t2", FP, LEASE);
                }
                // two records: a namespace is one key
                assertThat(byUrl.cleanUp()).hasValueSatisfying(line -> assertThat(line)
                        .startsWith("removed the 2 keys this run wrote (idemlab:").contains(privateServer.server().address()));
                try (IdempotencyStore again = byUrl.openStore()) {
                    assertThat(again.lookup("payment.charge:k1")).isEmpty();
                }
            }
            assertThat(someoneElses.lookup("payment.charge:theirs")).as("another run's key stays").isPresent();
            assertThat(privateServer.cleanUp()).as("a private server goes with its keys").isEmpty();
        }
    }

    @Test
    void aUrlWhereNothingListensIsAProvisioningErrorNamingTheAddress() {
        String dead = "redis://127.0.0.1:" + RedisProcess.freeLocalPort();
        assertThatThrownBy(() -> RedisBackend.open(new ProvisioningOptions(dead, null, null, null)))
                .isInstanceOf(ProvisioningException.class)
                .hasMessageContaining(dead.substring("redis://".length()));
    }

    @Test
    void askingForASystemBinaryThatIsNotOnPathSaysHowToGetAServer() {
        assumeTrue(RedisProvisioner.systemBinary().isEmpty(), "a redis-server is on PATH here");
        assertThatThrownBy(() -> RedisBackend.open(new ProvisioningOptions(null, Origin.SYSTEM, null, null)))
                .isInstanceOf(ProvisioningException.class)
                .hasMessageContaining("no redis-server on PATH")
                .hasMessageContaining("--redis-url");
    }

    @Test
    void redisIsAStoreTheLabKnowsAfterMemory() {
        assertThat(StoreBackends.NAMES).startsWith("memory", "redis");
        try (StoreBackend backend = StoreBackends.open("redis", new ProvisioningOptions(null, Origin.BUNDLED, null, null))) {
            assertThat(backend.name()).isEqualTo("redis");
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return socket.isConnected();
        } catch (IOException refused) {
            return false;
        }
    }
}
