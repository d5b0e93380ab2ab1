package dev.idemlab.peers.internal;

import java.net.URI;

/**
 * A {@code redis://host:port} URI taken apart.
 *
 * @param host the host
 * @param port the port
 */
record RedisAddress(String host, int port) {

    static RedisAddress parse(String redisUri) {
        if (redisUri == null) {
            throw new IllegalArgumentException("this peer needs a Redis: redis://host:port");
        }
        URI uri = URI.create(redisUri);
        if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("not a redis://host:port URI: " + redisUri);
        }
        return new RedisAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort());
    }
}
