package dev.idemlab.idempotency.tck;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

/**
 * Lincheck explores interleavings of reserve, complete, release and lookup on two keys and two
 * tokens, and checks that every outcome is one some sequential order of the same calls would give:
 * the memory store is linearizable. Time stands still (a fixed ticker), so nothing expires mid-run.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:2")
@Param(name = "token", gen = IntGen.class, conf = "1:2")
public class MemoryStoreLinearizabilityTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final String FP = "a".repeat(64);

    private final dev.idemlab.idempotency.spi.IdempotencyStore store = newStore();

    /** The store under check; the flawed subclass below swaps in a store whose reserve is not atomic. */
    dev.idemlab.idempotency.spi.IdempotencyStore newStore() {
        return new InMemoryIdempotencyStore(() -> 1L);
    }

    @Operation
    public String reserve(@Param(name = "key") int key, @Param(name = "token") int token) {
        Reservation answer = store.reserve("op:" + key, "t" + token, FP, LEASE);
        if (answer instanceof Reservation.Acquired) {
            return "acquired";
        }
        return "found " + describe(((Reservation.Found) answer).record());
    }

    @Operation
    public boolean complete(@Param(name = "key") int key, @Param(name = "token") int token) {
        return store.complete("op:" + key, "t" + token, FP, StoredResult.of("\"t" + token + "\""), TTL);
    }

    @Operation
    public boolean release(@Param(name = "key") int key, @Param(name = "token") int token) {
        return store.release("op:" + key, "t" + token);
    }

    @Operation
    public String lookup(@Param(name = "key") int key) {
        Optional<IdempotencyRecord> record = store.lookup("op:" + key);
        return record.map(MemoryStoreLinearizabilityTest::describe).orElse("absent");
    }

    private static String describe(IdempotencyRecord record) {
        return record instanceof Pending pending ? "pending " + pending.token() : "completed "
                + ((IdempotencyRecord.Completed) record).result().json();
    }

    private static ModelCheckingOptions options() {
        return new ModelCheckingOptions().iterations(8).invocationsPerIteration(200).threads(2).actorsPerThread(2);
    }

    @Test
    void theMemoryStoreIsLinearizable() {
        options().check(MemoryStoreLinearizabilityTest.class);
    }

    @Test
    void aStoreWhoseReserveIsNotAtomicIsCaught() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ModelCheckingOptions().iterations(40)
                        .invocationsPerIteration(100).threads(2).actorsPerThread(1).check(NotAtomic.class))
                .isInstanceOf(AssertionError.class);
    }

    /** The same operations over a store that reads, then writes, in two steps. */
    @Param(name = "key", gen = IntGen.class, conf = "1:2")
    @Param(name = "token", gen = IntGen.class, conf = "1:2")
    public static class NotAtomic extends MemoryStoreLinearizabilityTest {
        @Override
        dev.idemlab.idempotency.spi.IdempotencyStore newStore() {
            return new FlawedMemoryStore(FlawedMemoryStore.Flaw.RESERVE_IS_NOT_ATOMIC, new ManualTicker());
        }
    }
}
