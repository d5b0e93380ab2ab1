package dev.idemlab.peers;

import dev.idemlab.peers.internal.CamelPeer;
import dev.idemlab.peers.internal.JdempotentPeer;
import dev.idemlab.peers.internal.RedissonLockPeer;
import dev.idemlab.peers.internal.SpringIntegrationPeer;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/** The peers this module wires, by name. Stateless and thread-safe. */
public final class Peers {

    private Peers() { }

    /** Jdempotent 1.1.0, its aspect through a Spring AOP proxy, in-memory repository. */
    public static PeerFactory jdempotentMemory() {
        return factory("jdempotent-memory", StoreKind.MEMORY, (provider, uri) -> JdempotentPeer.inMemory(provider));
    }

    /** Jdempotent 1.1.0 with its Redis starter's repository (through a Sentinel it starts). */
    public static PeerFactory jdempotentRedis() {
        return factory("jdempotent-redis", StoreKind.REDIS, JdempotentPeer::onRedis);
    }

    /** The Redisson RLock idiom: lock, GET, run and SET with a ttl, unlock. */
    public static PeerFactory redissonLock() {
        return factory("redisson-lock", StoreKind.REDIS, RedissonLockPeer::open);
    }

    /** Spring Integration's idempotent receiver over a Redis metadata store. */
    public static PeerFactory springIntegration() {
        return factory("spring-integration", StoreKind.REDIS, SpringIntegrationPeer::open);
    }

    /** Apache Camel's idempotent consumer with its Spring Redis repository. */
    public static PeerFactory camel() {
        return factory("camel", StoreKind.REDIS, CamelPeer::open);
    }

    /** Every peer, in the order the tables list them. */
    public static List<PeerFactory> all() {
        return List.of(jdempotentMemory(), jdempotentRedis(), redissonLock(), springIntegration(), camel());
    }

    /** The peer called {@code name}, if there is one. */
    public static Optional<PeerFactory> byName(String name) {
        return all().stream().filter(factory -> factory.name().equals(name)).findFirst();
    }

    private static PeerFactory factory(String name, StoreKind store,
            BiFunction<FakePaymentProvider, String, ? extends PeerLibrary> open) {
        return new PeerFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public StoreKind storeKind() {
                return store;
            }

            @Override
            public PeerLibrary open(FakePaymentProvider provider, String redisUri) {
                return open.apply(provider, redisUri);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
