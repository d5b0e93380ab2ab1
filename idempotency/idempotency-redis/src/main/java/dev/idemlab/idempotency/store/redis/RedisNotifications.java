package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.CompletionNotifications.Subscription;
import dev.idemlab.idempotency.spi.NamespaceListeners;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's one subscriber connection, shared by all its waiters: the complete and release scripts
 * publish the record's key on the store's channel, and this connection hands each message to the
 * listeners of that key. Subscribing is a local registration; the connection is opened on the first
 * one (and reconnects by itself, re-subscribing). If it cannot be opened, waiters fall back to their
 * safety poll. Thread-safe.
 */
final class RedisNotifications implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisNotifications.class);

    private final RedisClient client;
    private final String channel;
    private final NamespaceListeners listeners = new NamespaceListeners();
    private final Object connectLock = new Object();
    private volatile StatefulRedisPubSubConnection<String, String> connection;

    RedisNotifications(RedisClient client, String channel) {
        this.client = client;
        this.channel = channel;
    }

    /** The channel the scripts publish on. */
    String channel() {
        return channel;
    }

    Subscription subscribe(String key, Runnable listener) {
        Subscription subscription = listeners.add(key, listener);
        ensureSubscribed();
        return subscription;
    }

    private void ensureSubscribed() {
        if (connection != null) {
            return;
        }
        synchronized (connectLock) {
            if (connection != null) {
                return;
            }
            try {
                StatefulRedisPubSubConnection<String, String> fresh = client.connectPubSub();
                fresh.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String from, String key) {
                        listeners.fire(key);
                    }
                });
                fresh.sync().subscribe(channel);
                connection = fresh;
            } catch (RuntimeException e) {
                LOG.debug("cannot subscribe to {}; waiters poll: {}", channel, e.toString());
            }
        }
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<String, String> open = connection;
        if (open != null) {
            open.close();
        }
    }
}
