package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.List;

/**
 * The one place the Redis store touches Lettuce: it runs a {@link LuaScript} by EVALSHA, reads
 * INFO, and turns every Lettuce failure into an {@link IdempotencyStoreException}.
 *
 * <p>The client fails fast by design: commands are rejected at once while disconnected (instead
 * of being queued until the server returns), every command has a short fixed timeout, and the
 * connection reconnects in the background so that the store recovers by itself. If the server is
 * unreachable when the store is created, the first connection is tried again on each call.
 *
 * <p>Thread-safe: one Lettuce connection, which is thread-safe, shared by all callers.
 */
final class RedisScriptClient implements AutoCloseable {

    private static final String STORE = "redis";

    private final RedisClient client;
    private final StoreCircuit circuit;
    private final Object connectLock = new Object();
    private volatile StatefulRedisConnection<String, String> connection;

    RedisScriptClient(RedisStoreConfig config) {
        RedisURI uri = RedisURI.create(config.uri());
        uri.setTimeout(config.commandTimeout());
        this.client = RedisClient.create(uri);
        this.circuit = new StoreCircuit(STORE, "redis-" + config.address(), config.circuitCoolDown());
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(config.connectTimeout()).build())
                .timeoutOptions(TimeoutOptions.enabled(config.commandTimeout()))
                .build());
    }

    /**
     * Runs {@code script} on {@code key} in one round trip; if the server lost its script cache, loads
     * the script and retries once.
     *
     * @param namespace the record's namespace, for the error message only
     * @return the script's multi-bulk reply: {@code Long} for integers, {@code String} for bulk strings
     * @throws IdempotencyStoreException if the server refused, timed out or failed the script
     */
    List<Object> run(LuaScript script, String namespace, String key, String... args) {
        return run(script, namespace, new String[] {key}, args);
    }

    /** Like {@link #run(LuaScript, String, String, String...)}, on several keys. */
    List<Object> run(LuaScript script, String namespace, String[] keys, String... args) {
        return circuit.call(namespace, () -> runNow(script, namespace, keys, args));
    }

    private List<Object> runNow(LuaScript script, String namespace, String[] keys, String... args) {
        try {
            RedisCommands<String, String> redis = connection().sync();
            try {
                return redis.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
            } catch (RedisNoScriptException lost) {
                // A restart, a failover or SCRIPT FLUSH emptied the server's script cache.
                redis.scriptLoad(script.body());
                return redis.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
            }
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(namespace, script.resource() + " failed", e);
        }
    }

    /**
     * One section of INFO, e.g. {@code server}.
     *
     * @throws IdempotencyStoreException if the server cannot be reached
     */
    String info(String section) {
        try {
            return connection().sync().info(section);
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(null, "INFO " + section + " failed", e);
        }
    }

    /** The store's subscriber, on this client's threads, for {@code channel}. */
    RedisNotifications notifications(String channel) {
        return new RedisNotifications(client, channel);
    }

    @Override
    public void close() {
        StatefulRedisConnection<String, String> open = connection;
        if (open != null) {
            open.close();
        }
        // No quiet period: nothing else shares this client's threads.
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> open = connection;
        if (open != null) {
            return open;
        }
        synchronized (connectLock) {
            if (connection == null) {
                connection = connectAndLoadScripts();
            }
            return connection;
        }
    }

    private StatefulRedisConnection<String, String> connectAndLoadScripts() {
        StatefulRedisConnection<String, String> fresh;
        try {
            fresh = client.connect();
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
                what + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }

    /** A timeout is a stall that may pass; a refused or dropped connection is an outage. */
    private static Failure classify(RuntimeException e) {
        if (e instanceof RedisCommandTimeoutException) {
            return Failure.TIMEOUT;
        }
        if (e instanceof RedisConnectionException || (e instanceof RedisException
                && e.getMessage() != null && e.getMessage().startsWith("Currently not connected"))) {
            return Failure.UNREACHABLE;
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof java.io.IOException) {
                return Failure.UNREACHABLE;
            }
        }
        return Failure.OTHER;
    }
}
