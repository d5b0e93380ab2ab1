package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.infra.ServerUrls;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Where the servers come from: {@code --redis-url}, {@code --redis-from}, {@code --pg-url}, {@code --pg-from}. */
final class ServerOptions {

    @Option(names = "--redis-url", paramLabel = "URL",
            description = "Use this Redis (redis://host:port), or this Redis Cluster "
                    + "(redis-cluster://host:port[,host:port...]), instead of starting one. Also env "
                    + ProvisioningOptions.REDIS_URL_ENV + ".")
    String redisUrl;

    @Option(names = "--redis-from", paramLabel = "ORIGIN", converter = RedisFrom.class,
            description = "Take Redis only from: url, system (redis-server on PATH), bundled, container, or cluster "
                    + "(a private local Redis Cluster of 3 masters and 3 replicas, from the same binary).")
    Origin redisFrom;

    @Option(names = "--pg-url", paramLabel = "URL",
            description = "Use this PostgreSQL (jdbc:postgresql://host:port/db?user=..&password=..). Also env "
                    + ProvisioningOptions.PG_URL_ENV + ".")
    String pgUrl;

    @Option(names = "--pg-from", paramLabel = "ORIGIN", converter = PgFrom.class,
            description = "Take PostgreSQL only from: url, bundled (embedded), container.")
    Origin pgFrom;

    @Option(names = "--durable",
            description = "Run private servers durable: PostgreSQL fsync=on and synchronous_commit=on, Redis "
                    + "appendonly yes with appendfsync everysec. Default: the fast configuration they start with "
                    + "(PostgreSQL fsync=off, synchronous_commit=off; Redis without persistence). A server given "
                    + "by URL is used as it is; outputs name what each server runs with.")
    boolean durable;

    /**
     * Where the servers of {@code stores} come from, every rule checked first: a URL given as an
     * option is checked whatever the store; a URL from the environment and a forced {@code url}
     * origin only when their store is used.
     *
     * @throws UsageException naming the option or variable, and the form it expects
     */
    ProvisioningOptions provisioning(Collection<String> stores) {
        checkUrl("--redis-url", redisUrl, ServerUrls.redisProblem(orEmpty(redisUrl)), ServerUrls.REDIS_FORM);
        checkUrl("--pg-url", pgUrl, ServerUrls.pgProblem(orEmpty(pgUrl)), ServerUrls.PG_FORM);
        ProvisioningOptions options = new ProvisioningOptions(redisUrl, redisFrom, pgUrl, pgFrom, durable);
        if (stores.contains("redis") || stores.contains(RedisClusterBackend.NAME)) {
            if (redisUrl == null) {
                String env = options.effectiveRedisUrl();
                checkUrl(ProvisioningOptions.REDIS_URL_ENV, env, ServerUrls.redisProblem(orEmpty(env)), ServerUrls.REDIS_FORM);
            }
            if (redisFrom == Origin.URL && options.effectiveRedisUrl() == null) {
                throw new UsageException("--redis-from url needs --redis-url URL or " + ProvisioningOptions.REDIS_URL_ENV);
            }
        }
        if (stores.contains("postgres")) {
            if (pgUrl == null) {
                String env = options.effectivePgUrl();
                checkUrl(ProvisioningOptions.PG_URL_ENV, env, ServerUrls.pgProblem(orEmpty(env)), ServerUrls.PG_FORM);
            }
            if (pgFrom == Origin.URL && options.effectivePgUrl() == null) {
                throw new UsageException("--pg-from url needs --pg-url URL or " + ProvisioningOptions.PG_URL_ENV);
            }
        }
        return options;
    }

    private static void checkUrl(String name, String url, Optional<String> problem, String form) {
        if (url != null && problem.isPresent()) {
            throw new UsageException(name + " " + ServerUrls.masked(url) + ": " + problem.get() + " (expected " + form + ")");
        }
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    /** An origin among {@code allowed}, by its id, case-insensitive; else a message listing them. */
    private static Origin origin(String value, List<Origin> allowed) {
        String id = value.trim().toLowerCase(Locale.ROOT);
        return allowed.stream().filter(o -> o.id().equals(id)).findFirst().orElseThrow(() ->
                new TypeConversionException("expected one of " + allowed.stream().map(Origin::id)
                        .collect(Collectors.joining(", ")) + ", got '" + value + "'"));
    }

    /** {@code --redis-from}: url, system, bundled, container or cluster. */
    static final class RedisFrom implements ITypeConverter<Origin> {
        @Override
        public Origin convert(String value) {
            return origin(value, List.of(Origin.URL, Origin.SYSTEM, Origin.BUNDLED, Origin.CONTAINER, Origin.CLUSTER));
        }
    }

    /** {@code --pg-from}: url, bundled or container (there is no PostgreSQL binary lookup on PATH). */
    static final class PgFrom implements ITypeConverter<Origin> {
        @Override
        public Origin convert(String value) {
            return origin(value, List.of(Origin.URL, Origin.BUNDLED, Origin.CONTAINER));
        }
    }
}
