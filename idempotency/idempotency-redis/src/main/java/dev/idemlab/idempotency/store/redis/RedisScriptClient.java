package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.StoreCircuit;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.PartitionSelectorException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The one place the Redis store touches Lettuce: it runs a {@link LuaScript} by EVALSHA, reads
 * INFO, and turns every Lettuce failure into an {@link IdempotencyStoreException}.
 *
 * <p>The client fails fast by design: commands are rejected at once while disconnected (instead
 * of being queued until the server returns), every command has a short fixed timeout, and the
 * connection reconnects in the background so that the store recovers by itself. If the server is
 * unreachable when the store is created, the first connection is tried again on each call.
 *
 * <p>On a Redis Cluster ({@link RedisStoreConfig#cluster()}) the client is Lettuce's cluster client:
 * EVALSHA is routed by its first key to the master that owns the key's slot (every key of a
 * namespace shares that slot), a node that does not know a script gets it by EVAL (so the fallback
 * is per node), and the client re-reads the cluster's topology when a node goes away or a slot
 * moves, so that it follows a failover. Each master has a circuit of its own: a connection to one
 * master that is still reconnecting fails that master's slots fast, not the whole cluster's.
 *
 * <p>Thread-safe: one Lettuce connection (standalone or cluster), which is thread-safe, shared by
 * all callers.
 */
final class RedisScriptClient implements AutoCloseable {

    private static final String STORE = "redis";
    /**
     * Every command here is synchronous, and a synchronous command already waits at most the
     * connection's timeout (the URI's, {@link RedisStoreConfig#commandTimeout()}) and is cancelled when
     * that passes. Lettuce's command expiry would also put a timer task on its wheel for every command,
     * which the store does not need: turned off.
     */
    private static final TimeoutOptions SYNC_ONLY = TimeoutOptions.builder().timeoutCommands(false).build();

    /**
     * The error replies with which a server refuses a command without running it, for a moment: during
     * resharding a namespace's keys may be split between two nodes (TRYAGAIN), or sit on the other node
     * (ASK, MOVED, once the client's own redirects are used up); a cluster that lost a master serves no
     * slot until a replica takes over (CLUSTERDOWN); a node that restarted reads its data (LOADING); a
     * master demoted by a failover refuses writes (READONLY) and a replica cut off from its master
     * refuses reads (MASTERDOWN) until the client follows the new topology; a server running a slow
     * script answers nothing else (BUSY). None of them wrote anything.
     */
    private static final List<String> NOT_RUN_NOW = List.of("TRYAGAIN", "ASK ", "MOVED ", "CLUSTERDOWN",
            "LOADING", "READONLY", "MASTERDOWN", "BUSY ");

    /** The least time between two reads of the cluster's topology that the store asks for itself. */
    static final Duration TOPOLOGY_REFRESH_GAP = Duration.ofMillis(200);

    private final RedisStoreConfig config;
    private final AbstractRedisClient client;
    /** Whether this store made {@link #client} (and shuts it down on close) or was handed it. */
    private final boolean ownsClient;
    /** The standalone server's URI with the store's command timeout; null on a cluster. */
    private final RedisURI standaloneUri;
    /** The standalone server's circuit; on a cluster, the one for calls no master is known for yet. */
    private final StoreCircuit circuit;
    /** On a cluster, one circuit per master, by node id: created as masters are first seen (a handful). */
    private final Map<String, StoreCircuit> masterCircuits = new ConcurrentHashMap<>();
    private final Object connectLock = new Object();
    /** Whether a read of the cluster's topology that this client asked for is under way. */
    private final java.util.concurrent.atomic.AtomicBoolean refreshingTopology =
            new java.util.concurrent.atomic.AtomicBoolean();
    /** When the last one started, by {@link System#nanoTime()}. */
    private volatile long lastTopologyRefresh = System.nanoTime() - TOPOLOGY_REFRESH_GAP.toNanos();
    private volatile StatefulConnection<String, String> connection;

    RedisScriptClient(RedisStoreConfig config) {
        this.config = config;
        this.client = config.cluster() ? clusterClient(config) : standaloneClient(config);
        this.ownsClient = true;
        this.standaloneUri = config.cluster() ? null : uri(config.uri(), config);
        this.circuit = new StoreCircuit(STORE, "redis-" + config.address(), config.circuitCoolDown());
    }

    /**
     * On a client the application made and keeps: its options and threads are left as they are, the
     * store opens its own connections on it to {@link RedisStoreConfig#uri()} and closes only those.
     */
    RedisScriptClient(RedisStoreConfig config, RedisClient borrowed) {
        if (config.cluster()) {
            throw new IllegalArgumentException("a RedisClient serves one server, and the config names a cluster ("
                    + config.address() + "): give a store of a Redis Cluster no client, it makes its own");
        }
        this.config = config;
        this.client = borrowed;
        this.ownsClient = false;
        this.standaloneUri = uri(config.uri(), config);
        this.circuit = new StoreCircuit(STORE, "redis-" + config.address(), config.circuitCoolDown());
    }

    private static RedisClient standaloneClient(RedisStoreConfig config) {
        RedisClient client = RedisClient.create(uri(config.uri(), config));
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(config.connectTimeout()).build())
                .timeoutOptions(SYNC_ONLY)
                .build());
        return client;
    }

    private static RedisClusterClient clusterClient(RedisStoreConfig config) {
        List<RedisURI> seeds = new ArrayList<>();
        for (String seed : config.seedUris()) {
            seeds.add(uri(seed, config));
        }
        RedisClusterClient client = RedisClusterClient.create(seeds);
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(config.connectTimeout()).build())
                .timeoutOptions(SYNC_ONLY)
                // A failover moves slots to a replica: re-read the topology as soon as a node is lost
                // or a MOVED arrives, at most once a second, and close connections to nodes that left.
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                        .refreshTriggersReconnectAttempts(1)
                        .closeStaleConnections(true)
                        .build())
                .build());
        return client;
    }

    private static RedisURI uri(String uri, RedisStoreConfig config) {
        RedisURI parsed = RedisURI.create(uri);
        parsed.setTimeout(config.commandTimeout());
        return parsed;
    }

    /**
     * Runs {@code script} on {@code key} in one round trip; if the server lost its script cache, sends
     * the script itself (EVAL) once.
     *
     * @param namespace the record's namespace, for the error message only
     * @param args each a {@code String} (sent as UTF-8) or a {@code byte[]} (sent as it is)
     * @return the script's multi-bulk reply: {@code Long} for integers, {@code byte[]} for bulk strings
     *     (a record holds its fingerprint's bytes, which no text codec would keep)
     * @throws IdempotencyStoreException if the server refused, timed out or failed the script
     */
    List<Object> run(LuaScript script, String namespace, String key, Object... args) {
        return run(script, namespace, new String[] {key}, args);
    }

    /** Like {@link #run(LuaScript, String, String, String...)}, on several keys of one hash slot. */
    List<Object> run(LuaScript script, String namespace, String[] keys, Object... args) {
        return circuitOf(keys[0]).call(namespace, () -> runNow(script, namespace, keys, args));
    }

    /**
     * Like {@link #run(LuaScript, String, String, String...)}, past the circuit: for lease renewals,
     * which must not wait out a cool-down that new requests' failures opened while the lease of a live
     * holder runs out. They are one in flight per holder, so they cannot pile up on a dead server.
     */
    List<Object> runPastCircuit(LuaScript script, String namespace, String key, Object... args) {
        return runNow(script, namespace, new String[] {key}, args);
    }

    /**
     * Runs {@code script}, then, when its reply shows that it wrote ({@code wrote}), sends
     * {@code WAIT replicas timeout} on the very connection to the master that ran it: WAIT counts the
     * replicas that acknowledged that connection's writes so far, so it must follow the script on the
     * same connection, and it cannot run inside a script. While it blocks, other calls on that
     * connection queue behind it.
     *
     * @throws IdempotencyStoreException also when fewer replicas than asked acknowledged the write
     *     within the timeout (the write stays on the master; a failover now could lose it)
     */
    List<Object> runThenWait(LuaScript script, String namespace, String[] keys, Predicate<List<Object>> wrote,
                             Object... args) {
        return circuitOf(keys[0]).call(namespace, () -> {
            RedisClusterCommands<String, String> node;
            try {
                node = masterOf(keys[0]);
            } catch (IdempotencyStoreException e) {
                throw e;
            } catch (RuntimeException e) {
                throw failure(namespace, "cannot reach the master of " + keys[0], e);
            }
            List<Object> reply = evalOn(node, script, namespace, keys, args);
            if (!wrote.test(reply)) {
                return reply;
            }
            long acknowledged;
            try {
                acknowledged = node.waitForReplication(config.waitReplicas(), config.waitTimeout().toMillis());
            } catch (RuntimeException e) {
                throw failure(namespace, "WAIT after " + script.resource() + " failed", e);
            }
            if (acknowledged < config.waitReplicas()) {
                throw new IdempotencyStoreException(STORE, namespace, Failure.OTHER, "the reservation was "
                        + "acknowledged by " + acknowledged + " of the " + config.waitReplicas()
                        + " replica(s) asked for within " + config.waitTimeout().toMillis() + " ms (WAIT): it is"
                        + " on the master only, and a failover now would lose it", null);
            }
            return reply;
        });
    }

    /**
     * The circuit that guards {@code key}: the standalone server's, or on a cluster that of the master
     * the client's topology names for the key's slot (the shared one before the first connection, or
     * while the slot has no known master: those calls fail on their own and open it).
     */
    private StoreCircuit circuitOf(String key) {
        if (!config.cluster()) {
            return circuit;
        }
        // The connection as it is, never a connect: connecting is the guarded call's own first step.
        RedisClusterNode master = connection instanceof StatefulRedisClusterConnection<String, String> cluster
                ? cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key)) : null;
        if (master == null) {
            return circuit;
        }
        StoreCircuit own = masterCircuits.get(master.getNodeId());
        return own != null ? own : masterCircuits.computeIfAbsent(master.getNodeId(), id -> new StoreCircuit(STORE,
                "redis-" + config.address() + "-" + master.getUri().getHost() + ":" + master.getUri().getPort(),
                config.circuitCoolDown()));
    }

    private List<Object> runNow(LuaScript script, String namespace, String[] keys, Object... args) {
        RedisClusterCommands<String, String> redis;
        try {
            redis = commands();
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(namespace, script.resource() + " failed", e);
        }
        return evalOn(redis, script, namespace, keys, args);
    }

    private List<Object> evalOn(RedisClusterCommands<String, String> redis, LuaScript script, String namespace,
                                String[] keys, Object... args) {
        try {
            return evalOnce(redis, script, namespace, keys, args);
        } catch (IdempotencyStoreException e) {
            // The partitions the cluster client holds lack the key's slot (read while a slot moved or a master
            // failed over): read the topology again, now, and try once more, instead of failing every call on
            // that slot until something else makes the client look (the nemesis found 14 s of it).
            if (config.cluster() && causedBy(e, PartitionSelectorException.class)) {
                refreshTopology(true);
                return evalOnce(redis, script, namespace, keys, args);
            }
            throw e;
        }
    }

    /**
     * Reads the cluster's topology again ({@code now}: and waits for it), unless a read is already under
     * way or one started less than {@link #TOPOLOGY_REFRESH_GAP} ago. Every failing call asks for one,
     * and each read opens a connection to every node: ungated, the calls of one outage started
     * thousands at once and ran the process out of file descriptors (the nemesis, 20,000 in 30 minutes).
     */
    private void refreshTopology(boolean now) {
        if (!(client instanceof RedisClusterClient cluster)) {
            return;
        }
        long at = System.nanoTime();
        if (at - lastTopologyRefresh < TOPOLOGY_REFRESH_GAP.toNanos() || !refreshingTopology.compareAndSet(false, true)) {
            return;
        }
        // Won the gate, but another read may have started and ended between the first look and the win.
        at = System.nanoTime();
        if (at - lastTopologyRefresh < TOPOLOGY_REFRESH_GAP.toNanos()) {
            refreshingTopology.set(false);
            return;
        }
        lastTopologyRefresh = at;
        if (now) {
            try {
                cluster.refreshPartitions();
            } finally {
                refreshingTopology.set(false);
            }
        } else {
            try {
                cluster.refreshPartitionsAsync().whenComplete((done, failed) -> refreshingTopology.set(false));
            } catch (RuntimeException e) {
                refreshingTopology.set(false);
                throw e;
            }
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }

    private List<Object> evalOnce(RedisClusterCommands<String, String> redis, LuaScript script, String namespace,
                                  String[] keys, Object... args) {
        try {
            try {
                return redis.dispatch(CommandType.EVALSHA, new ScriptOutput(script), scriptArgs(script.sha(), keys, args));
            } catch (RedisNoScriptException lost) {
                // A restart, a failover, SCRIPT FLUSH or a node that never saw the script: EVAL sends
                // it, and the node keeps it for the next EVALSHA.
                return redis.dispatch(CommandType.EVAL, new ScriptOutput(script), scriptArgs(script.body(), keys, args));
            }
        } catch (RuntimeException e) {
            // A stall says nothing of the topology; a lost connection or a refusal may be a node gone.
            if (config.cluster() && !(e instanceof RedisCommandTimeoutException)) {
                refreshTopology(false);
            }
            throw failure(namespace, script.resource() + " failed", e);
        }
    }

    /**
     * EVALSHA's or EVAL's arguments, as Lettuce's own {@code evalsha} lays them out: the keys added as
     * keys, so that a cluster connection routes the command by the first one's slot.
     */
    private static CommandArgs<String, String> scriptArgs(String shaOrBody, String[] keys, Object[] args) {
        CommandArgs<String, String> command = new CommandArgs<>(StringCodec.UTF8).add(shaOrBody).add(keys.length)
                .addKeys(keys);
        for (Object arg : args) {
            if (arg instanceof byte[] bytes) {
                command.add(bytes);
            } else {
                command.addValue((String) arg);
            }
        }
        return command;
    }

    /** The commands on the connection to the master that owns {@code key}'s slot. */
    private RedisClusterCommands<String, String> masterOf(String key) {
        StatefulConnection<String, String> open = connection();
        if (open instanceof StatefulRedisClusterConnection<String, String> cluster) {
            RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
            if (master == null) {
                refreshTopology(false);
                throw new IdempotencyStoreException(STORE, null, Failure.UNREACHABLE,
                        "no master is known for slot " + SlotHash.getSlot(key) + " of " + key, null);
            }
            return cluster.getConnection(master.getNodeId()).sync();
        }
        return ((StatefulRedisConnection<String, String>) open).sync();
    }

    /**
     * One section of INFO, e.g. {@code server}; on a cluster, from any one node.
     *
     * @throws IdempotencyStoreException if the server cannot be reached
     */
    String info(String section) {
        try {
            return commands().info(section);
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(null, "INFO " + section + " failed", e);
        }
    }

    /** The store's subscriber, on this client's threads; see {@link RedisNotifications}. */
    RedisNotifications notifications(String channel, boolean sharded) {
        return new RedisNotifications(client, standaloneUri, channel, sharded);
    }

    @Override
    public void close() {
        StatefulConnection<String, String> open = connection;
        if (open != null) {
            open.close();
        }
        if (ownsClient) {
            // No quiet period: nothing else shares this client's threads.
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private RedisClusterCommands<String, String> commands() {
        StatefulConnection<String, String> open = connection();
        if (open instanceof StatefulRedisClusterConnection<String, String> cluster) {
            return cluster.sync();
        }
        return ((StatefulRedisConnection<String, String>) open).sync();
    }

    private StatefulConnection<String, String> connection() {
        StatefulConnection<String, String> open = connection;
        if (open != null) {
            return open;
        }
        synchronized (connectLock) {
            if (connection == null) {
                connection = config.cluster() ? connectCluster() : connectAndLoadScripts();
            }
            return connection;
        }
    }

    /** Scripts reach each master by EVAL on first use there: a cluster's nodes come and go. */
    private StatefulRedisClusterConnection<String, String> connectCluster() {
        try {
            return ((RedisClusterClient) client).connect();
        } catch (RuntimeException e) {
            throw failure(null, "cannot connect to the cluster", e);
        }
    }

    private StatefulRedisConnection<String, String> connectAndLoadScripts() {
        StatefulRedisConnection<String, String> fresh;
        try {
            // The URI, not the client's default: an application's client may have none (one made with
            // RedisClient.create() and a URI per connect, as Spring's connection factory makes it).
            fresh = ((RedisClient) client).connect(standaloneUri);
        } catch (RuntimeException e) {
            throw failure(null, "cannot connect", e);
        }
        try {
            for (LuaScript script : LuaScript.values()) {
                String sha = fresh.sync().scriptLoad(script.body());
                if (!script.sha().equalsIgnoreCase(sha)) {
                    throw new IllegalStateException("SCRIPT LOAD of " + script.resource() + " answered " + sha
                            + ", expected " + script.sha());
                }
            }
            return fresh;
        } catch (RuntimeException e) {
            fresh.close();
            throw failure(null, "cannot load the Lua scripts", e);
        }
    }

    private IdempotencyStoreException failure(String namespace, String what, RuntimeException e) {
        return new IdempotencyStoreException(STORE, namespace, classify(e),
                what + " at " + config.target() + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }

    /**
     * A timeout is a stall that may pass; a server that answered it did not run the command for now
     * ({@link #NOT_RUN_NOW}) is busy, to be tried again. A connection failure is one of two: a command
     * Lettuce rejected before sending it ({@link #neverSent}) never landed, and the server is
     * unreachable; a command whose connection was lost while it was in flight ({@link #lostInFlight})
     * may have run there, its reply lost, which is a timeout's case: tried again within the patience
     * (the same token acquires again, complete and release check it) and, if that fails, settled in
     * the background. Such a loss does not open the circuit by itself: while the client reconnects,
     * the next command is rejected unsent, in microseconds, and that opens it.
     */
    static Failure classify(RuntimeException e) {
        if (e instanceof RedisCommandTimeoutException) {
            return Failure.TIMEOUT;
        }
        if (notRunNow(e) || causedBy(e, PartitionSelectorException.class)) {
            // The client's partitions lack the key's slot for now (a slot moving, a failover): nothing was
            // sent, and a topology read a moment later finds the slot's master. Not an outage.
            return Failure.BUSY;
        }
        if (neverSent(e)) {
            return Failure.UNREACHABLE;
        }
        if (lostInFlight(e)) {
            return Failure.TIMEOUT;
        }
        return Failure.OTHER;
    }

    /**
     * Rejected before it was written: no connection could be made (refused, a failed handshake), or the
     * endpoint refused the write because it is disconnected ({@code REJECT_COMMANDS}) or was closed.
     */
    private static boolean neverSent(RuntimeException e) {
        if (e instanceof RedisConnectionException) {
            return true;
        }
        String message = e.getMessage();
        if (e instanceof RedisException && message != null
                && (message.startsWith("Currently not connected") || message.equals("Connection is closed"))) {
            return true;
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof RedisConnectionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Written, then its connection went: the command at the head of the connection's queue gets the
     * I/O error itself (a reset by the peer, a broken pipe), and the others Lettuce fails as the channel
     * goes inactive ("Connection disconnected" while commands are rejected, "Connection closed" for a
     * connection being closed).
     */
    private static boolean lostInFlight(RuntimeException e) {
        String message = e.getMessage();
        if (e instanceof RedisException && ("Connection disconnected".equals(message)
                || "Connection closed".equals(message))) {
            return true;
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e}, or what it wraps, is an error reply of {@link #NOT_RUN_NOW}. */
    private static boolean notRunNow(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (t instanceof RedisException && message != null
                    && NOT_RUN_NOW.stream().anyMatch(message::startsWith)) {
                return true;
            }
        }
        return false;
    }
}
