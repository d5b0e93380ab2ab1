package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.StaleFenceException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fences never repeat on PostgreSQL either, also when the server lost its sequence: a fence is the
 * greater of the server's clock in microseconds, the sequence's next value and the row's last fence
 * plus one. Before, the sequence alone made fences, and a server that came back with an older
 * sequence (a restore, a promoted replica that lagged) gave a fence out twice. The tests rewind the
 * table's sequence: on a server given by URL, that is the sequence of the test's own schema.
 */
class PostgresFencesTest {

    private static final String FP = "a".repeat(64);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long HOUR_US = Duration.ofHours(1).toNanos() / 1000;

    private static TestPostgres server;
    private static PostgresIdempotencyStore store;
    private static PostgresTable table;

    @BeforeAll
    static void startServer() {
        server = TestPostgres.provide();
        store = PostgresTable.openStore(server);
        table = new PostgresTable(store);
    }

    @AfterAll
    static void stopServer() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String namespace() {
        return "payment.charge:" + UUID.randomUUID();
    }

    private static long fence(String ns, String token) {
        return ((Reservation.Acquired) store.reserve(ns, token, FP, LEASE)).fence();
    }

    @Test
    void aFenceIsTheServersClockInMicroseconds() {
        table.rewindFenceSequence(1); // the table's one sequence, which other tests here move ahead of the clock
        long before = table.serverMicros();
        long fence = fence(namespace(), "t1");
        assertThat(fence).isBetween(before, table.serverMicros());
        assertThat(table.lastFence()).isEqualTo(fence);
    }

    /**
     * The stale holder's reservation and the sequence's last values are lost, as on a replica that
     * lagged and was promoted: the next fence still exceeds the stale holder's, so a provider that
     * checks fences refuses it once the new holder charged.
     */
    @Test
    void aSequenceHandedBackToAnOlderValueStillGivesAFenceAboveEveryEarlierOne() {
        String ns = namespace();
        long older = fence(ns, "t1");
        assertThat(store.release(ns, "t1")).isTrue();
        long stale = fence(ns, "t2"); // this holder is paused past the failover
        table.lose(ns);
        table.rewindFenceSequence(older);

        long next = fence(ns, "t3");

        assertThat(next).isGreaterThan(stale);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).checkFences(true).build();
        ChargeRequest charge = ChargeRequest.of("order-" + ns, 10, ns);
        assertThat(provider.charge(charge.withFence(next)).id()).isEqualTo("ch_1");
        assertThatThrownBy(() -> provider.charge(charge.withFence(stale))).isInstanceOf(StaleFenceException.class);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    /** As after the server's clock stepped back an hour: the sequence, ahead of it, keeps fences growing. */
    @Test
    void aSequenceAheadOfTheClockIsFollowed() {
        long ahead = table.serverMicros() + HOUR_US;
        table.rewindFenceSequence(ahead);
        assertThat(fence(namespace(), "t1")).isEqualTo(ahead + 1);
    }

    /** A row taken over after its lease ran out carries its own last fence, whatever the sequence says. */
    @Test
    void anExpiredRowTakenOverGetsAFenceAboveItsOwnLastOne() {
        String ns = namespace();
        fence(ns, "t1");
        long written = table.serverMicros() + 2 * HOUR_US;
        table.setFence(ns, written);
        table.expire(ns);
        table.rewindFenceSequence(1);

        assertThat(fence(ns, "t2")).isEqualTo(written + 1);
    }
}
