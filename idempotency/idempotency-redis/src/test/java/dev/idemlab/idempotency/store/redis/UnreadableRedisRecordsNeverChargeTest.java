package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.testsupport.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A store may fail open when its server is gone, never because of what the server said. Each value
 * below was once read as a storage error, and the coordinator failed open and charged again on every
 * call; now each is refused as unreadable, the action never runs, and no storage error is counted.
 * The same for an interrupted caller: Lettuce's interrupt was counted as a reserve error and the
 * action ran.
 */
class UnreadableRedisRecordsNeverChargeTest {

    private static final ResultCodec<String> CODEC = ResultCodec.json(String.class);
    private static final Fingerprint FINGERPRINT = Fingerprint.ofFields(Map.of("amount", 10));

    private static TestRedis server;
    private static RedisIdempotencyStore store;
    private static RawRedis raw;

    @BeforeAll
    static void startServer() {
        server = TestRedis.provide();
        store = RawRedis.openStore(server);
        raw = new RawRedis(server.uri());
        raw.firstRoundTrip(store);
    }

    @AfterAll
    static void stopServer() throws Exception {
        RawRedis.closeAll(raw, store, server);
    }

    static Stream<Arguments> unreadableValues() {
        String fp = FINGERPRINT.hex();
        return Stream.of(
                Arguments.of("not a record", (BiConsumer<RawRedis, String>) (r, key) -> r.commands().set(key, "not")),
                Arguments.of("a record of the JSON encoding", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().set(key, "{\"v\":1,\"state\":\"completed\",\"fingerprint\":\"" + fp + "\"}")),
                Arguments.of("an older schema without a version", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().set(key, "{\"state\":\"completed\",\"fingerprint\":\"" + fp + "\",\"result\":\"\\\"ch_1\\\"\"}")),
                Arguments.of("a later schema version", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().set(key, "4|c|" + fp + "|\"ch_1\"")),
                Arguments.of("an unknown state of this schema", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.setBytes(key, record("3|z|", fp, "\"ch_1\""), null)),
                Arguments.of("a record of this schema cut inside its fingerprint", (BiConsumer<RawRedis, String>)
                        (r, key) -> r.setBytes(key, Arrays.copyOf(record("3|c|", fp, ""), 20), null)),
                Arguments.of("a reservation of this schema without the bar after its fence",
                        (BiConsumer<RawRedis, String>) (r, key) ->
                                r.setBytes(key, record("3|p|", fp, "1700000000000000"), Duration.ofMinutes(1))),
                Arguments.of("a reservation of this schema without an expiry", (BiConsumer<RawRedis, String>)
                        (r, key) -> r.setBytes(key, record("3|p|", fp, "1700000000000000|t"), null)),
                Arguments.of("an unknown state", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().set(key, "2|z|" + fp + "|\"ch_1\"")),
                Arguments.of("a header without the end of its fingerprint", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().set(key, "2|c|" + fp)),
                Arguments.of("the JSON 42", (BiConsumer<RawRedis, String>) (r, key) -> r.commands().set(key, "42")),
                Arguments.of("a pending record without an expiry", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().set(key, "2|p|" + fp + "|t")),
                Arguments.of("a key of another type", (BiConsumer<RawRedis, String>) (r, key) ->
                        r.commands().hset(key, "state", "completed")));
    }

    /** A record laid out as schema version 3 lays it out: header, the fingerprint's bytes, the rest. */
    private static byte[] record(String header, String fingerprint, String rest) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(header.getBytes(StandardCharsets.UTF_8));
        out.writeBytes(HexFormat.of().parseHex(fingerprint));
        out.writeBytes(rest.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unreadableValues")
    void anUnreadableRecordIsRefusedUnderWaitAndRaiseAndTheActionNeverRuns(String what, BiConsumer<RawRedis, String> plant) {
        for (InFlightPolicy policy : InFlightPolicy.values()) {
            String key = UUID.randomUUID().toString();
            IdempotentCall call = IdempotentCall.of("payment.charge", key, FINGERPRINT);
            plant.accept(raw, store.keyOf(call.namespace()));
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.custom().policy(policy).build()).build();
            AtomicInteger charges = new AtomicInteger();
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> coordinator.execute(call, CODEC, () -> "ch_" + charges.incrementAndGet()))
                        .as("%s under %s", what, policy)
                        .isInstanceOfSatisfying(IdempotencyRecordUnreadableException.class,
                                e -> assertThat(e.httpStatus()).isEqualTo(500));
            }
            assertThat(charges).as("charges for %s under %s", what, policy).hasValue(0);
            assertThat(coordinator.stats().count(Outcome.RECORD_UNREADABLE)).isEqualTo(2);
            assertThat(coordinator.stats().totalStorageErrors()).isZero();
            assertThat(coordinator.stats().count(Outcome.FAILED_OPEN)).isZero();
        }
    }

    @Test
    void anInterruptedCallerOnACompletedKeyDoesNotChargeAndKeepsItsInterrupt() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).build();
        IdempotentCall call = IdempotentCall.of("payment.charge", UUID.randomUUID().toString(), FINGERPRINT);
        AtomicInteger charges = new AtomicInteger();
        assertThat(coordinator.execute(call, CODEC, () -> "ch_" + charges.incrementAndGet())).isEqualTo("ch_1");

        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> coordinator.execute(call, CODEC, () -> "ch_" + charges.incrementAndGet()))
                    .isInstanceOf(IdempotencyInterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(charges).hasValue(1);
        assertThat(coordinator.stats().totalStorageErrors()).isZero();
    }

    @Test
    void aHolderInterruptedDuringItsActionStillStoresItsResultWithoutCountingAnError() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).build();
        IdempotentCall call = IdempotentCall.of("payment.charge", UUID.randomUUID().toString(), FINGERPRINT);
        try {
            String charged = coordinator.execute(call, CODEC, () -> {
                Thread.currentThread().interrupt(); // interrupted after the effect happened
                return "ch_1";
            });
            assertThat(charged).isEqualTo("ch_1");
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt flag is kept").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(store.lookup(call.namespace())).containsInstanceOf(Completed.class);
        assertThat(coordinator.stats().totalStorageErrors()).isZero();
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }
}
