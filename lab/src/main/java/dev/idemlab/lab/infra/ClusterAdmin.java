package dev.idemlab.lab.infra;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The lab's administrative line to each node of its local cluster: one Lettuce connection per node,
 * the CLUSTER commands that form and change the cluster (in place of {@code redis-cli --cluster}), and
 * waits for the cluster to reach a state, each bounded. Thread-safe.
 */
final class ClusterAdmin implements AutoCloseable {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final long POLL_NANOS = Duration.ofMillis(20).toNanos();

    private final RedisClient client = RedisClient.create();
    private final Map<Integer, StatefulRedisConnection<String, String>> connections = new ConcurrentHashMap<>();

    /** The commands of the node on {@code port}, over a connection opened on first use. */
    RedisClusterCommands<String, String> node(int port) {
        return connections.computeIfAbsent(port, p -> {
            RedisURI uri = RedisURI.create("127.0.0.1", p);
            uri.setTimeout(COMMAND_TIMEOUT);
            return client.connect(uri);
        }).sync();
    }

    /** Forgets the connection to a node that is gone. */
    void drop(int port) {
        StatefulRedisConnection<String, String> gone = connections.remove(port);
        if (gone != null) {
            gone.closeAsync();
        }
    }

    /** The cluster as the node on {@code port} sees it. */
    Partitions view(int port) {
        return ClusterPartitionParser.parse(node(port).clusterNodes());
    }

    /** One field of CLUSTER INFO or INFO replication on the node on {@code port}, e.g. {@code cluster_state}. */
    String field(int port, String name) {
        String text = name.startsWith("cluster_") ? node(port).clusterInfo() : node(port).info("replication");
        for (String line : text.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "";
    }

    /**
     * Polls {@code done} until it holds; a poll that throws counts as not yet.
     *
     * @throws ProvisioningException naming {@code what} if it does not hold within {@code patience}
     */
    static void await(String what, Duration patience, BooleanSupplier done) {
        long deadline = System.nanoTime() + patience.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                if (done.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new ProvisioningException("the local cluster did not reach '" + what + "' within "
                        + patience.toSeconds() + " s" + (last == null ? "" : ": " + last.getMessage()), last);
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.currentThread().isInterrupted()) {
                throw new ProvisioningException("interrupted while waiting for '" + what + "'", null);
            }
        }
    }

    @Override
    public void close() {
        connections.values().forEach(StatefulRedisConnection::closeAsync);
        connections.clear();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
