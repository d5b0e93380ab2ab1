package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The forms of server URL the lab takes, checked before anything connects, so that a mistyped URL
 * is a usage error naming the expected form rather than a driver's message (or its log line).
 *
 * <p>Stateless and thread-safe.
 */
public final class ServerUrls {

    /** What a Redis URL looks like. */
    public static final String REDIS_FORM = "redis://[:password@]host[:port][/database], rediss://..., or "
            + "redis-cluster://[:password@]host:port[,host:port...] for a Redis Cluster";
    /** What a PostgreSQL URL looks like. */
    public static final String PG_FORM = "jdbc:postgresql://host[:port]/database[?user=..&password=..]";

    private static final Pattern PG = Pattern.compile("jdbc:postgresql://([^/?#]+)(/[^?#]*)?(\\?.*)?");
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._%-]+)(?::(\\d{1,9}))?");
    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)(password=)[^&]*");

    private ServerUrls() { }

    /** What is wrong with {@code url} as a Redis URL, or empty when nothing is. */
    public static Optional<String> redisProblem(String url) {
        if (RedisClusterBackend.isClusterUrl(url)) {
            try {
                RedisStoreConfig.of(url.trim());
                return Optional.empty();
            } catch (InvalidIdempotencyConfigException e) {
                return Optional.of("not a cluster seed list: list host:port pairs, comma-separated, no database");
            }
        }
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            return Optional.of("not a URL");
        }
        if (uri.getScheme() == null || !(uri.getScheme().equalsIgnoreCase("redis") || uri.getScheme().equalsIgnoreCase("rediss"))) {
            return Optional.of("the scheme must be redis or rediss");
        }
        if (uri.getHost() == null) {
            return Optional.of(hostlessProblem(uri.getRawAuthority()));
        }
        if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
            return Optional.of("the port must be between 1 and 65535");
        }
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.matches("/\\d{0,2}")) {
            return Optional.of("the path must be a database number, got '" + path + "'");
        }
        return Optional.empty();
    }

    /**
     * What is wrong with an authority the URI parser found no host in: a host with a port that is not a
     * number from 1 to 65535 ({@code host:abc}, {@code host:99999}, {@code host:}) says so with the port it
     * got, and only an authority with nothing before its port says there is no host. The user and
     * password part is never echoed.
     */
    private static String hostlessProblem(String authority) {
        if (authority == null) {
            return "no host";
        }
        String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
        int colon = hostPort.lastIndexOf(':');
        if (hostPort.startsWith("[") || colon < 0) {
            return hostPort.isEmpty() ? "no host" : "the host '" + hostPort + "' is not a host name or address";
        }
        if (colon == 0) {
            return "no host";
        }
        return "the port must be a number between 1 and 65535, got '" + hostPort.substring(colon + 1) + "'";
    }

    /** What is wrong with {@code url} as a PostgreSQL JDBC URL, or empty when nothing is. */
    public static Optional<String> pgProblem(String url) {
        Matcher matcher = PG.matcher(url.trim());
        if (!matcher.matches()) {
            return Optional.of("it must start with jdbc:postgresql:// and name a host");
        }
        for (String hostPort : matcher.group(1).split(",", -1)) {
            Matcher each = HOST_PORT.matcher(hostPort);
            if (!each.matches()) {
                // Never echoed: a user and password typed here would end up in the message.
                return Optional.of("the host part is not host[:port][,host[:port]...] (give user and password as "
                        + "?user=..&password=..)");
            }
            if (each.group(2) != null) {
                long port = Long.parseLong(each.group(2));
                if (port < 1 || port > 65535) {
                    return Optional.of("the port must be between 1 and 65535");
                }
            }
        }
        return Optional.empty();
    }

    /** {@code url} with any password in it replaced by {@code ***}, for messages. */
    public static String masked(String url) {
        String masked = PASSWORD_PARAM.matcher(url).replaceAll("$1***");
        return masked.replaceFirst("^([A-Za-z][A-Za-z0-9+.:-]*://)[^@/]*@", "$1***@");
    }
}
