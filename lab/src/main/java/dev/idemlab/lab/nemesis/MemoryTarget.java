package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-process store: no network and no server to fault, but a clock of its own. Its fault is the
 * clock jumping past the lease (as a Redis key's early expiry would), which ends every reservation it
 * holds at once: a promise of the store broken on purpose.
 */
final class MemoryTarget extends NemesisTarget {

    private final AtomicLong jumped = new AtomicLong();
    private final Duration lease;
    private final InMemoryIdempotencyStore store;

    MemoryTarget(dev.idemlab.lab.infra.ServerInfo server, Duration lease) {
        super(server);
        this.lease = lease;
        Ticker jumping = () -> System.nanoTime() + jumped.get();
        this.store = new InMemoryIdempotencyStore(jumping);
    }

    @Override
    IdempotencyStore store() {
        return store;
    }

    @Override
    List<FaultKind> kinds() {
        return List.of(FaultKind.CLOCK_JUMP);
    }

    @Override
    void inject(FaultKind kind, Duration length) {
        if (kind != FaultKind.CLOCK_JUMP) {
            throw new IllegalArgumentException(kind.id() + " is not a fault of the memory store");
        }
        jumped.addAndGet(lease.plusMillis(1).toNanos());
        hold(length);
    }

    @Override
    public void close() {
        store.close();
    }
}
