package dev.idemlab.idempotency.spring.autoconfigure;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SslVerifyMode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the Redis store can take from Spring Data Redis's {@link LettuceConnectionFactory}: its Lettuce
 * {@link RedisClient}, and the server it connects to as a {@code redis://} or {@code rediss://} URI
 * (host, port, database, username and password, TLS with its peer verification, the client name) for
 * {@code RedisStoreConfig}. The client's options, TLS trust material from an SSL bundle included, are
 * the factory's and apply to the store's connections as they are.
 *
 * <p>Only a factory on one server over TCP qualifies. A cluster's client is a {@code RedisClusterClient}
 * and a Sentinel's connections go through the Sentinels, neither of which a {@code redis://} URI names;
 * a Unix socket, StartTLS and a {@code RedisCredentialsProviderFactory} (rotating credentials) cannot be
 * written in the URI the store connects with either. For those {@link #unusableBecause} says why, and
 * {@code idempotency.redis.uri} is the way. A factory on a static master/replica configuration cannot be
 * told apart from a standalone one through the factory's public API; its host reads as the default,
 * {@code localhost:6379}, so such an application sets {@code idempotency.redis.uri} to its master.
 *
 * <p>Stateless; the factory is read when the store is made.
 */
final class ConnectionFactoryClient {

    private ConnectionFactoryClient() { }

    /**
     * Why the store cannot run on {@code factory}'s client and server, or {@code null} when it can.
     * A factory not started yet (an application's {@code earlyStartup=false}) has no client to lend.
     */
    static String unusableBecause(LettuceConnectionFactory factory) {
        List<String> reasons = new ArrayList<>();
        if (factory.isClusterAware()) {
            reasons.add("it serves a Redis Cluster (a cluster store makes its own client: set a redis-cluster:// uri)");
        }
        if (factory.isRedisSentinelAware()) {
            reasons.add("it reaches its master through Redis Sentinel, which a redis:// uri cannot name");
        }
        if (factory.getSocketConfiguration() != null) {
            reasons.add("it connects over a Unix socket");
        }
        LettuceClientConfiguration client = factory.getClientConfiguration();
        if (client.isUseSsl() && client.isStartTls()) {
            reasons.add("it uses StartTLS, which a rediss:// uri cannot ask for");
        }
        if (client.getRedisCredentialsProviderFactory().isPresent()) {
            reasons.add("its credentials come from a RedisCredentialsProviderFactory, not a fixed password");
        }
        if (reasons.isEmpty() && !factory.isRunning()) {
            reasons.add("it is not started (earlyStartup=false), so it has no client yet");
        }
        if (reasons.isEmpty() && !(factory.getNativeClient() instanceof RedisClient)) {
            AbstractRedisClient nativeClient = factory.getNativeClient();
            reasons.add("its client is a " + (nativeClient == null ? "null" : nativeClient.getClass().getSimpleName())
                    + ", not a RedisClient");
        }
        return reasons.isEmpty() ? null : String.join("; ", reasons);
    }

    /** The factory's own client. Call only when {@link #unusableBecause} said nothing. */
    static RedisClient client(LettuceConnectionFactory factory) {
        return (RedisClient) factory.getRequiredNativeClient();
    }

    /**
     * The server {@code factory} connects to, as the store's URI. Username and password are
     * percent-encoded where they need it; the URI carries the password, which {@code RedisStoreConfig}
     * never prints.
     */
    static String uri(LettuceConnectionFactory factory) {
        LettuceClientConfiguration client = factory.getClientConfiguration();
        String username = factory.getStandaloneConfiguration().getUsername();
        RedisPassword password = factory.getStandaloneConfiguration().getPassword();
        String userInfo = null;
        if (password.isPresent()) {
            // Lettuce reads "user:password", or ":password" for the default user.
            userInfo = (username == null || username.isEmpty() ? "" : username) + ":" + new String(password.get());
        }
        List<String> query = new ArrayList<>();
        client.getClientName().ifPresent(name -> query.add("clientName=" + name));
        if (client.isUseSsl() && client.getVerifyMode() != SslVerifyMode.FULL) {
            query.add("verifyPeer=" + client.getVerifyMode().name());
        }
        try {
            // The multi-argument constructor percent-encodes what a component may not hold ('@', '/', '%').
            return new URI(client.isUseSsl() ? "rediss" : "redis", userInfo, factory.getHostName(), factory.getPort(),
                    "/" + factory.getDatabase(), query.isEmpty() ? null : String.join("&", query), null).toASCIIString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the LettuceConnectionFactory's server " + factory.getHostName() + ":"
                    + factory.getPort() + " cannot be written as a redis:// uri: " + e.getReason(), e);
        }
    }
}
