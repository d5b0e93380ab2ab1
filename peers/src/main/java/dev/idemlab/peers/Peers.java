package dev.idemlab.peers;

import dev.idemlab.peers.internal.CamelPeer;
import dev.idemlab.peers.internal.DbosPeer;
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

    /**
     * DBOS Transact: a durable workflow whose id is the key, its one step the charge, checkpointed in a
     * PostgreSQL schema of its own. Opened on a {@link StoreKind#POSTGRES} URI ({@link #postgresUri}).
     */
    public static PeerFactory dbos() {
        return factory("dbos", StoreKind.POSTGRES, DbosPeer::open);
    }

    /** Every peer, in the order the tables list them. */
    public static List<PeerFactory> all() {
        return List.of(jdempotentMemory(), jdempotentRedis(), redissonLock(), springIntegration(), camel(), dbos());
    }

    /**
     * The URI a {@link StoreKind#POSTGRES} peer is opened on: the JDBC URL with the user and password
     * as its {@code user} and {@code password} parameters (left as they are when {@code user} is
     * {@code null}: the URL carries them, or the server asks none).
     */
    public static String postgresUri(String jdbcUrl, String user, String password) {
        if (user == null) {
            return jdbcUrl;
        }
        String query = "user=" + encode(user) + (password == null ? "" : "&password=" + encode(password));
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + query;
    }

    private static String encode(String value) {
        return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
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
