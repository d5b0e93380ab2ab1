package dev.idemlab.lab.load.raw;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Redis baselines, through Lettuce like the Redis store: one thread-safe connection shared by all
 * threads, synchronous commands, and the store's client options where they change what a command costs
 * (no per-command expiry timer; a synchronous call waits at most the URI's timeout either way), so that
 * a ratio measures the store's work and not a difference of client settings. A value is JSON of the
 * size the store writes. Thread-safe.
 */
public final class RedisRawStore implements RawStore {

    /** The least a reserve script can do: set if absent with a lease, else answer what is there. */
    static final String RESERVE_SCRIPT = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
            + "return {1} end return {2, redis.call('GET', KEYS[1])}";

    private static final String PENDING = "{\"state\":\"pending\",\"token\":\"0123456789abcdef-1\","
            + "\"fingerprint\":\"" + "0".repeat(64) + "\"}";
    /** A completed record's JSON up to its result, which follows as JSON of its own, then a closing brace. */
    private static final String COMPLETED_PREFIX = "{\"state\":\"completed\",\"fingerprint\":\"" + "0".repeat(64)
            + "\",\"result\":";
    private static final String COMPLETED = COMPLETED_PREFIX + "\"\\\"ch_1\\\"\"}";
    private static final String LEASE_MILLIS = Long.toString(Duration.ofSeconds(30).toMillis());
    private static final SetArgs SET_IF_ABSENT = SetArgs.Builder.nx().px(Duration.ofSeconds(30));
    private static final SetArgs SEED = SetArgs.Builder.px(Duration.ofHours(24));
    private static final SetArgs REPLACE = SetArgs.Builder.xx().px(Duration.ofHours(24));

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String reserveSha;
    private final String prefix = "raw:" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ':';

    /** Connects to {@code uri} and loads the reserve script. */
    public RedisRawStore(String uri) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(Duration.ofSeconds(2));
        this.client = RedisClient.create(redisUri);
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                .build());
        this.connection = client.connect();
        this.redis = connection.sync();
        this.reserveSha = redis.scriptLoad(RESERVE_SCRIPT);
    }

    @Override
    public Object reserve(String key) {
        return redis.evalsha(reserveSha, ScriptOutputType.MULTI, new String[] {prefix + key}, PENDING, LEASE_MILLIS);
    }

    /**
     * The two writes a first call needs without the library, each its own round trip as the store's
     * reserve and complete are: take the key if absent with a lease, then replace it with the result
     * and the record's ttl.
     */
    @Override
    public Object plainWrite(String key) {
        String k = prefix + key;
        redis.set(k, PENDING, SET_IF_ABSENT);
        return redis.set(k, COMPLETED, REPLACE);
    }

    @Override
    public boolean markPending(String key) {
        return "OK".equals(redis.set(prefix + key, PENDING, SET_IF_ABSENT));
    }

    @Override
    public void storeResult(String key, String resultJson) {
        redis.set(prefix + key, COMPLETED_PREFIX + resultJson + '}', REPLACE);
    }

    @Override
    public String readResult(String key) {
        String record = redis.get(prefix + key);
        return record != null && record.startsWith(COMPLETED_PREFIX)
                ? record.substring(COMPLETED_PREFIX.length(), record.length() - 1) : null;
    }

    @Override
    public Object plainRead(String key) {
        return redis.get(prefix + key);
    }

    @Override
    public void seed(String key) {
        redis.set(prefix + key, COMPLETED, SEED);
    }

    @Override
    public void forgetKeys() {
        // The keys live in the trial's server and expire by their PX.
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
