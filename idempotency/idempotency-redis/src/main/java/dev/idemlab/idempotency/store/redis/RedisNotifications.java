package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.CompletionNotifications.Listener;
import dev.idemlab.idempotency.spi.CompletionNotifications.Subscription;
import dev.idemlab.idempotency.spi.NamespaceListeners;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The store's one subscriber connection, shared by all its waiters: the complete and release scripts
 * publish the record's key and how its reservation ended ({@link EndingMessage}), and this connection
 * hands each message to the listeners of that key, so that a waiter that recognises the reservation
 * it saw has its answer without reading the record again.
 * The connection is opened on the first subscription (and reconnects by itself, re-subscribing). If it
 * cannot be opened, waiters fall back to their safety poll, and it is tried again a second later at
 * the soonest; a connection whose subscription failed is closed, never kept.
 *
 * <p>Two ways to publish. <em>Classic</em>: one channel for the whole store, PUBLISH; on a Redis
 * Cluster a classic message is broadcast to every node, so one subscription on any node hears all of
 * them (the fallback before Redis 7, at the price of that broadcast). <em>Sharded</em> (Redis 7
 * Cluster): one channel per namespace in the namespace's hash slot, SPUBLISH, so a message stays on
 * the shard that owns the record; the subscriber SSUBSCRIBEs a namespace's channel while someone waits
 * on it, and drops it when the last waiter leaves.
 *
 * <p>Thread-safe.
 */
final class RedisNotifications implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisNotifications.class);
    private static final String SHARDED_SUFFIX = ":events";

    private final AbstractRedisClient client;
    /** Where a standalone client's subscriber connects (the client may have no default URI); null on a cluster. */
    private final RedisURI standaloneUri;
    private final String channel;
    private final boolean sharded;
    private final NamespaceListeners listeners = new NamespaceListeners();
    private final Object connectLock = new Object();
    /** Sharded only: how many subscriptions each record key's channel has; guarded by itself. */
    private final Map<String, Integer> shardedCounts = new HashMap<>();
    /** Bytes, not strings: a message's lengths are in bytes (see {@link EndingMessage}). */
    private static final long RETRY_SUBSCRIBE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;
    /** Guarded by {@code connectLock}: no connection is opened once the store closed. */
    private boolean closed;
    /** Guarded by {@code connectLock}: when a failed subscription may be tried again (System.nanoTime). */
    private long retryAt;
    private boolean failedBefore;

    /**
     * @param channel the store's classic channel
     * @param sharded whether to use one sharded channel per namespace instead (Redis 7 Cluster)
     */
    RedisNotifications(AbstractRedisClient client, RedisURI standaloneUri, String channel, boolean sharded) {
        this.client = client;
        this.standaloneUri = standaloneUri;
        this.channel = channel;
        this.sharded = sharded;
    }

    /** The channel the scripts publish {@code recordKey} on. */
    String channel(String recordKey) {
        return sharded ? recordKey + SHARDED_SUFFIX : channel;
    }

    /** The command the scripts publish with: PUBLISH or SPUBLISH. */
    String publishCommand() {
        return sharded ? "SPUBLISH" : "PUBLISH";
    }

    Subscription subscribe(String key, Listener listener) {
        Subscription subscription = listeners.add(key, listener);
        ensureConnected();
        if (!sharded) {
            return subscription;
        }
        shardedSubscribe(key);
        return () -> {
            subscription.close();
            shardedUnsubscribe(key);
        };
    }

    private void shardedSubscribe(String key) {
        StatefulRedisPubSubConnection<byte[], byte[]> open = connection;
        synchronized (shardedCounts) {
            int before = shardedCounts.getOrDefault(key, 0);
            shardedCounts.put(key, before + 1);
            if (before == 0 && open instanceof StatefulRedisClusterPubSubConnection<byte[], byte[]> cluster) {
                try {
                    cluster.sync().ssubscribe(bytes(channel(key)));
                } catch (RuntimeException e) {
                    LOG.debug("cannot SSUBSCRIBE {}; its waiters poll: {}", channel(key), e.toString());
                }
            }
        }
    }

    private void shardedUnsubscribe(String key) {
        StatefulRedisPubSubConnection<byte[], byte[]> open = connection;
        synchronized (shardedCounts) {
            int after = shardedCounts.getOrDefault(key, 1) - 1;
            if (after > 0) {
                shardedCounts.put(key, after);
                return;
            }
            shardedCounts.remove(key);
            if (open instanceof StatefulRedisClusterPubSubConnection<byte[], byte[]> cluster) {
                try {
                    cluster.sync().sunsubscribe(bytes(channel(key)));
                } catch (RuntimeException e) {
                    LOG.debug("cannot SUNSUBSCRIBE {}: {}", channel(key), e.toString());
                }
            }
        }
    }

    private void ensureConnected() {
        if (connection != null) {
            return;
        }
        synchronized (connectLock) {
            if (connection != null || closed || failedBefore && System.nanoTime() - retryAt < 0) {
                return;
            }
            StatefulRedisPubSubConnection<byte[], byte[]> fresh = null;
            try {
                if (client instanceof RedisClusterClient cluster) {
                    StatefulRedisClusterPubSubConnection<byte[], byte[]> clustered =
                            cluster.connectPubSub(ByteArrayCodec.INSTANCE);
                    // SSUBSCRIBE goes to the shard's node: hand its messages to this connection's listener.
                    clustered.setNodeMessagePropagation(true);
                    fresh = clustered;
                } else {
                    fresh = ((RedisClient) client).connectPubSub(ByteArrayCodec.INSTANCE, standaloneUri);
                }
                fresh.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(byte[] from, byte[] message) {
                        tell(message);
                    }

                    @Override
                    public void smessage(byte[] from, byte[] message) {
                        tell(message);
                    }
                });
                if (!sharded) {
                    fresh.sync().subscribe(bytes(channel));
                }
                connection = fresh;
            } catch (RuntimeException e) {
                // A connection whose SUBSCRIBE failed (a timeout, an ACL without the channel) is closed here:
                // kept, each waiter would open another, and on a client the application lent the store
                // they would outlive the store. Waiters poll meanwhile; one try a second at the most.
                if (fresh != null) {
                    fresh.closeAsync();
                }
                failedBefore = true;
                retryAt = System.nanoTime() + RETRY_SUBSCRIBE_NANOS;
                LOG.debug("cannot subscribe to {}; waiters poll: {}", channel, e.toString());
            }
        }
    }

    private void tell(byte[] message) {
        EndingMessage ended = EndingMessage.read(message, listeners::watching);
        listeners.fire(ended.key(), ended.ending());
    }

    private static byte[] bytes(String channel) {
        return channel.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<byte[], byte[]> open;
        synchronized (connectLock) {
            closed = true;
            open = connection;
            connection = null;
        }
        if (open != null) {
            open.close();
        }
    }
}
