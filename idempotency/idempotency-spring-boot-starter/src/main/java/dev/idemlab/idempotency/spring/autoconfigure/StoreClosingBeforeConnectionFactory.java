package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Closes the Redis store just before Spring Data Redis's {@link LettuceConnectionFactory} stops. The
 * factory shuts its Lettuce client down when it stops, which comes before any bean is destroyed; a
 * store on that client closed at destruction would find it gone. So the store's two connections are
 * closed first, on a client that still runs, and the factory then closes its own (its shared
 * connection answers until then). The phase is one above the factory's, and this bean depends on the
 * factory, so it stops first either way; both come after the web server's graceful shutdown (whose
 * phase is far higher), so requests still in flight finish on an open store.
 *
 * <p>This bean closes the store once, whichever comes first: its stop, or its destruction (a context
 * whose startup failed is destroyed without being stopped). The store's own destroy method closes it
 * too, where startup failed before this bean was made, and is a no-op after this one's (the store closes
 * once). A context that is stopped and started
 * again keeps a closed store (and a factory with a new client): restart the application instead.
 *
 * <p>Thread-safe.
 */
final class StoreClosingBeforeConnectionFactory implements SmartLifecycle, DisposableBean {

    private final RedisIdempotencyStore store;
    private final int phase;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean running;

    StoreClosingBeforeConnectionFactory(RedisIdempotencyStore store, LettuceConnectionFactory factory) {
        this.store = store;
        int factoryPhase = factory.getPhase();
        this.phase = factoryPhase == Integer.MAX_VALUE ? factoryPhase : factoryPhase + 1;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        closeStore();
    }

    @Override
    public void destroy() {
        closeStore();
    }

    private void closeStore() {
        if (closed.compareAndSet(false, true)) {
            store.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
