package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoreKeys;
import dev.idemlab.idempotency.spi.StoredResult;
import io.lettuce.core.RedisClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A store on Redis: each operation is one Lua script, run atomically by the server in one round
 * trip (EVALSHA). Leases and ttls are set with PX, so expiry is decided by the Redis server's
 * clock, and PTTL tells how much of a lease is left. {@code complete} and {@code release} compare
 * the owner token inside the script, so a stale holder changes nothing.
 *
 * <p>Records live under {@link RedisStoreConfig#keyPrefix()} + namespace, each as one string of record
 * schema version {@value RecordEncoding#SCHEMA_VERSION} with a fixed header ({@link RecordEncoding}):
 * the scripts read it by prefix, fixed offsets and {@code string.find}, never by decoding JSON. It keeps
 * the fingerprint as its 32 bytes, so the store takes fingerprints as the coordinator writes them
 * (a SHA-256 in 64 lower-case hex characters) and the scripts' replies are read as bytes. Records of
 * schema version 2 (an earlier release's) are still read; a record of any other version (version 1
 * was JSON) is refused as unreadable, naming its version. A namespace is one key, and the key carries
 * the namespace as a hash tag (as does, on Redis 7 Cluster, its notification channel), so that each
 * script touches one hash slot and the same scripts run on one server and on a Redis Cluster
 * ({@link RedisStoreConfig#cluster()}).
 *
 * <p>A fencing number is the server's clock in microseconds ({@code TIME}); a reservation keeps its
 * fence in its record, and a token that takes its own live reservation again (a retried reserve) gets
 * that fence plus one if the clock is not past it. The clock makes fences outlive what the server
 * lost (a restart from an older RDB snapshot, a promoted replica that had not seen the last
 * reservations): it has moved past them. A new attempt only reserves a key with no live record, so
 * the last reservation ended (completed, released or expired) at least a script's run earlier, and
 * the clock has moved past its fence by the time since. That relies on the server's clock not
 * stepping back by more than that. No key of a namespace outlives its record: there is no other key.
 *
 * <p>Every failure to reach or understand the server (refused, timed out, unparseable reply) is an
 * {@link IdempotencyStoreException}, and costs about the command timeout at most: while
 * disconnected, commands are rejected at once. Creating the store does not fail when the server is
 * down, so that a service can start, and fail open, without its store; the server version then
 * reads {@value #UNKNOWN_VERSION}.
 *
 * <p>Thread-safe.
 */
public final class RedisIdempotencyStore implements IdempotencyStore, CompletionNotifications {

    /** The version {@link #describe()} reports when the server could not be asked at creation. */
    public static final String UNKNOWN_VERSION = "unknown";

    private static final Logger LOG = LoggerFactory.getLogger(RedisIdempotencyStore.class);

    private final RedisStoreConfig config;
    private final RedisScriptClient scripts;
    private final RedisNotifications notifications;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final String evictionPolicy;
    /** Re-read while the version is unknown: a cold client's first INFO can miss the short timeout. */
    private volatile StoreDescription description;

    /**
     * Makes a Lettuce client of its own, connects to the server {@code config} names and reads its
     * version once. {@link #close()} closes the connections and shuts the client down.
     */
    public RedisIdempotencyStore(RedisStoreConfig config) {
        this(config, new RedisScriptClient(Objects.requireNonNull(config, "config")));
    }

    /**
     * A store on the application's own Lettuce client: it opens its two connections (commands, and
     * the subscriber that wakes waiters) on {@code client}'s threads to the server {@code config}
     * names ({@link RedisStoreConfig#uri()}; the client needs no URI of its own), and {@link #close()}
     * closes those two and leaves the client running: the application made it and shuts it down.
     *
     * <p>The client's options stay the application's. The store's command timeout is set on its own
     * connections, but what a command does while the client is disconnected is the client's setting:
     * Lettuce's default queues it until the connection is back or the command timeout passes, so with
     * the server down each call costs that timeout until the circuit opens; a client made with
     * {@code DisconnectedBehavior.REJECT_COMMANDS} (what the store's own client uses) fails it at once.
     *
     * @param client the application's client; not closed by the store
     * @param config where to connect, the key prefix and timeouts; a standalone server
     * @throws IllegalArgumentException if {@code config} names a Redis Cluster: that store makes its own
     *     cluster client
     */
    public RedisIdempotencyStore(RedisClient client, RedisStoreConfig config) {
        this(config, new RedisScriptClient(Objects.requireNonNull(config, "config"),
                Objects.requireNonNull(client, "client")));
    }

    private RedisIdempotencyStore(RedisStoreConfig config, RedisScriptClient scripts) {
        this.config = config;
        this.scripts = scripts;
        this.description = new StoreDescription("redis", serverVersion(), config.address());
        // Sharded pub/sub needs Redis 7; a cluster before it, or a store that could not ask, publishes
        // classically (which a cluster broadcasts to every node).
        boolean sharded = config.cluster() && majorVersion(description.serverVersion()) >= 7;
        this.notifications = scripts.notifications(config.keyPrefix() + "events", sharded);
        this.evictionPolicy = readEvictionPolicy();
        if (canEvictRecords()) {
            LOG.warn("redis at {} runs maxmemory-policy {}: under memory pressure it may evict idempotency records "
                    + "(every one has a TTL), and a retry of an evicted key runs its action again; use noeviction",
                    config.address(), evictionPolicy);
        }
    }

    /** The server's {@code maxmemory-policy} as INFO reported it when the store started, or "unknown". */
    public String evictionPolicy() {
        return evictionPolicy;
    }

    /**
     * Whether that policy can evict this store's records: an {@code allkeys-*} policy evicts any key,
     * a {@code volatile-*} one any key with a TTL, and every record has one.
     */
    public boolean canEvictRecords() {
        return evictionPolicy.startsWith("allkeys-") || evictionPolicy.startsWith("volatile-");
    }

    private String readEvictionPolicy() {
        try {
            for (String line : scripts.info("memory").split("\r?\n")) {
                if (line.startsWith("maxmemory_policy:")) {
                    return line.substring("maxmemory_policy:".length()).trim();
                }
            }
        } catch (IdempotencyStoreException e) {
            LOG.debug("could not read the eviction policy: {}", e.getMessage());
        }
        return "unknown";
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        byte[] head = RecordEncoding.reservationHead(fingerprintBytes(fingerprint));
        String[] keys = {key(namespace)};
        Object[] args = {token, head, millis(lease)};
        List<Object> reply = config.waitReplicas() > 0
                ? scripts.runThenWait(LuaScript.RESERVE, namespace, keys,
                        written -> ScriptReply.status(written, namespace) == ScriptReply.DONE, args)
                : scripts.run(LuaScript.RESERVE, namespace, keys, args);
        long status = ScriptReply.status(reply, namespace);
        if (status == ScriptReply.DONE) {
            return Reservation.acquired(ScriptReply.fence(reply, namespace));
        }
        return Reservation.found(found(status, reply, namespace));
    }

    /** Past the circuit (see {@link RedisScriptClient#runPastCircuit}), as on every network store. */
    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        List<Object> reply = scripts.runPastCircuit(LuaScript.RENEW, namespace, key(namespace), token, millis(lease));
        return doneOrNotHeld(reply, namespace);
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        byte[] record = RecordEncoding.completed(fingerprintBytes(fingerprint), result);
        String key = key(namespace);
        List<Object> reply = scripts.run(LuaScript.COMPLETE, namespace, key, token, record, millis(ttl),
                notifications.channel(key), notifications.publishCommand(),
                EndingMessage.completedHead(key, token, record.length));
        return doneOrNotHeld(reply, namespace);
    }

    @Override
    public boolean release(String namespace, String token) {
        String key = key(namespace);
        List<Object> reply = scripts.run(LuaScript.RELEASE, namespace, key, token, notifications.channel(key),
                notifications.publishCommand(), EndingMessage.released(key, token));
        return doneOrNotHeld(reply, namespace);
    }

    /** Wakes waiters by Redis pub/sub: one subscriber connection per store, subscribed on first use. */
    @Override
    public Subscription subscribe(String namespace, Listener listener) {
        return notifications.subscribe(key(namespace), listener);
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        List<Object> reply = scripts.run(LuaScript.LOOKUP, namespace, key(namespace));
        long status = ScriptReply.status(reply, namespace);
        if (status == ScriptReply.ABSENT) {
            return Optional.empty();
        }
        return Optional.of(found(status, reply, namespace));
    }

    @Override
    public StoreDescription describe() {
        StoreDescription known = description;
        if (known.serverVersion().equals(UNKNOWN_VERSION)) {
            known = new StoreDescription("redis", serverVersion(), config.address());
            description = known;
        }
        return known;
    }

    /** {@link RedisStoreConfig#keyPrefix()}: downstream keys differ where the records' keys do. */
    @Override
    public String keyPrefix() {
        return config.keyPrefix();
    }

    /** The configuration this store was created with. */
    public RedisStoreConfig config() {
        return config;
    }

    /**
     * The Redis key that holds {@code namespace}'s record: {@code prefix{operation:key}}. The prefix
     * holds no brace and the operation no colon, so the first brace ends the prefix and the first
     * colon after it ends the operation: distinct (prefix, operation, key) never share a Redis key,
     * whatever characters the key holds. The braces are a hash tag, so a namespace's keys share a
     * Redis Cluster slot.
     */
    public String keyOf(String namespace) {
        return StoreKeys.of(config.keyPrefix(), namespace);
    }

    /**
     * Closes the store's connections, and the Lettuce client when the store made it (not one given to
     * {@link #RedisIdempotencyStore(RedisClient, RedisStoreConfig)}). Does not touch the server. A second close does
     * nothing.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            notifications.close();
            scripts.close();
        }
    }

    private String key(String namespace) {
        return keyOf(Objects.requireNonNull(namespace, "namespace"));
    }

    private static IdempotencyRecord found(long status, List<Object> reply, String namespace) {
        if (status == ScriptReply.UNREADABLE) {
            throw ScriptReply.unreadable(reply, namespace);
        }
        if (status != ScriptReply.FOUND) {
            throw new IdempotencyStoreException("redis", namespace, "unparseable reply: status " + status
                    + " where a record was expected", null);
        }
        return ScriptReply.record(reply, namespace);
    }

    private static boolean doneOrNotHeld(List<Object> reply, String namespace) {
        long status = ScriptReply.status(reply, namespace);
        if (status == ScriptReply.UNREADABLE) {
            throw ScriptReply.unreadable(reply, namespace);
        }
        if (status != ScriptReply.DONE && status != ScriptReply.NOT_HELD) {
            throw new IdempotencyStoreException("redis", namespace, "unparseable reply: status " + status
                    + " where done or not-held was expected", null);
        }
        return status == ScriptReply.DONE;
    }

    /** A record keeps the fingerprint as a SHA-256's 32 bytes (see {@link RecordEncoding}). */
    private static byte[] fingerprintBytes(String fingerprint) {
        return RecordEncoding.fingerprintBytes(Objects.requireNonNull(fingerprint, "fingerprint"));
    }

    /** PX wants whole, positive milliseconds: round a sub-millisecond remainder up, never down to 0. */
    private static String millis(Duration duration) {
        long nanos = duration.toNanos();
        return Long.toString(Math.max(1, (nanos + 999_999) / 1_000_000));
    }

    /** The major version of {@code version} ("6.2.11" is 6), or 0 when it cannot be read. */
    static int majorVersion(String version) {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private String serverVersion() {
        try {
            for (String line : scripts.info("server").split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).trim();
                }
            }
            return UNKNOWN_VERSION;
        } catch (IdempotencyStoreException e) {
            LOG.warn("redis at {} is unreachable; the store will connect on its first call: {}",
                    config.address(), e.getMessage());
            return UNKNOWN_VERSION;
        }
    }
}
