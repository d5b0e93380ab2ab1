package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;

/** The in-process store: nothing to provision, nothing to stop, and it cannot go down. */
public final class MemoryBackend implements StoreBackend {

    private static final ServerInfo SERVER = new ServerInfo("memory", "in-process", Origin.IN_PROCESS, "in-process");

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public ServerInfo server() {
        return SERVER;
    }

    @Override
    public IdempotencyStore openStore() {
        return new InMemoryIdempotencyStore();
    }

    @Override
    public StoreOutage openOutage() {
        throw new UnsupportedOperationException(
                "the memory store lives in this process and cannot become unreachable; use --store redis or postgres");
    }

    @Override
    public void close() {
        // nothing was started
    }
}
