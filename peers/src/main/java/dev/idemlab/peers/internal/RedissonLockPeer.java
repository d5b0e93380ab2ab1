package dev.idemlab.peers.internal;

import dev.idemlab.peers.ChargeReceipt;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The Redisson idiom: take the key's {@link RLock} (its watchdog renews the lease while the holder
 * lives), read the stored result, run and store it with a time to live if there is none, unlock.
 * Redisson's client settings are its defaults.
 *
 * <p>Thread-safe.
 */
public final class RedissonLockPeer implements PeerLibrary {

    /** How long a stored result lives, as the post's default. */
    static final Duration RESULT_TTL = Duration.ofHours(24);

    private final FakePaymentProvider provider;
    private final RedissonClient redisson;

    private RedissonLockPeer(FakePaymentProvider provider, RedissonClient redisson) {
        this.provider = provider;
        this.redisson = redisson;
    }

    /** Opens the peer: a Redisson client on one server. */
    public static RedissonLockPeer open(FakePaymentProvider provider, String redisUri) {
        RedisAddress.parse(redisUri);
        Config config = new Config();
        config.useSingleServer().setAddress(redisUri);
        return new RedissonLockPeer(provider, Redisson.create(config));
    }

    @Override
    public String name() {
        return "redisson-lock";
    }

    @Override
    public String version() {
        return LibraryVersion.of("org.redisson", "redisson", Redisson.class);
    }

    @Override
    public String wiring() {
        return "RLock per key: lock, GET the result bucket, run and SET it with a 24 h ttl, unlock";
    }

    @Override
    public StoreKind storeKind() {
        return StoreKind.REDIS;
    }

    @Override
    public Object charge(String idempotencyKey, String orderId, long amount) {
        RLock lock = redisson.getLock("peers:lock:" + idempotencyKey);
        lock.lock();
        try {
            RBucket<ChargeReceipt> result = redisson.getBucket("peers:result:" + idempotencyKey);
            ChargeReceipt stored = result.get();
            if (stored != null) {
                return stored;
            }
            ChargeReceipt receipt = ChargeReceipt.of(provider.charge(orderId, amount, idempotencyKey));
            result.set(receipt, RESULT_TTL);
            return receipt;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
