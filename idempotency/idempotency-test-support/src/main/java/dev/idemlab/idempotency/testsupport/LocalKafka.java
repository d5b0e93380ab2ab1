package dev.idemlab.idempotency.testsupport;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A private Apache Kafka broker in this JVM: Kafka's own {@code KafkaRaftServer} in KRaft mode, one
 * node that is both broker and controller, its storage formatted in a fresh temporary directory, and
 * both listeners ({@code PLAINTEXT} for clients, {@code CONTROLLER} for the quorum) on 127.0.0.1 only,
 * on ports free when it starts. Neither Spring's {@code EmbeddedKafkaKraftBroker} nor Kafka's
 * {@code KafkaClusterTestKit} is used: both open their sockets on every interface whatever
 * {@code listeners} says.
 *
 * <p>{@code KafkaRaftServer} and the {@code Formatter} are Kafka's internal classes, which change
 * between releases: the build pins Kafka's version ({@code kafka.version}), and {@code LocalKafkaTest}
 * checks that no listener of the broker is on the wildcard address. The broker cannot be asked which
 * port it bound, so the ports are chosen first (bind 127.0.0.1:0, read the port, release it), and a
 * start that loses its port to another process in between is tried again on new ones.
 *
 * <p>Topics are created with one partition and replication factor 1 by default, and the internal
 * topics (offsets, transactions) fit one broker. The broker logs through SLF4J: a test's
 * {@code simplelogger.properties} at WARN keeps its thousands of INFO lines out.
 *
 * <p>{@link #startWithShareGroups(Duration)} starts one on which share groups (KIP-932, a preview in
 * Kafka 4.1) run: the feature {@code share.version} finalized at level 1 when the storage is formatted,
 * the share coordinator's state topic on one partition, and the records' acquisition lock as short as
 * asked. {@link #start()} leaves share groups off, as Kafka 4.1 does by default.
 *
 * <p>{@link #close()} stops the broker and removes its directory; close it in {@code @AfterAll} or
 * with try-with-resources, so that it runs whether or not the tests passed. Thread-safe.
 */
public final class LocalKafka implements AutoCloseable {

    /** The only address a private broker listens on. */
    public static final String HOST = "127.0.0.1";

    /** The feature that turns share groups on, and the level that does. */
    public static final String SHARE_VERSION_FEATURE = "share.version";
    private static final short SHARE_VERSION_LEVEL = 1;
    /** The shortest acquisition lock Kafka 4.1 accepts ({@code group.share.min.record.lock.duration.ms}'s floor). */
    public static final Duration MIN_RECORD_LOCK = Duration.ofSeconds(1);
    /** The longest a share-group broker's lock may be here: Kafka's default ceiling, {@code group.share.max.record.lock.duration.ms}. */
    public static final Duration MAX_RECORD_LOCK = Duration.ofSeconds(60);

    private static final int NODE_ID = 1;
    private static final int START_ATTEMPTS = 3;

    private KafkaRaftServer server;
    private final KafkaConfig config;
    private final Path directory;
    private final int port;
    private final int controllerPort;
    private final Duration recordLock;
    private boolean closed;

    private LocalKafka(KafkaRaftServer server, KafkaConfig config, Path directory, int port, int controllerPort,
                       Duration recordLock) {
        this.server = server;
        this.config = config;
        this.directory = directory;
        this.port = port;
        this.controllerPort = controllerPort;
        this.recordLock = recordLock;
    }

    /**
     * Formats a fresh directory and starts a broker in it.
     *
     * @return a broker whose startup has returned: its listeners are bound and it accepts clients
     * @throws IllegalStateException if it does not start, with Kafka's reason
     */
    public static LocalKafka start() {
        return start(null);
    }

    /**
     * Formats a fresh directory with share groups turned on ({@code share.version} 1) and starts a broker
     * in it whose share groups hold a delivered record for {@code recordLock}
     * ({@code group.share.record.lock.duration.ms}; the group-level {@code share.record.lock.duration.ms} may
     * ask for another between {@link #MIN_RECORD_LOCK} and this broker's maximum, 60 s). The rest is as
     * {@link #start()}'s.
     *
     * @param recordLock how long a share consumer holds a record it was delivered before the broker
     *     delivers it again: {@link #MIN_RECORD_LOCK} to {@link #MAX_RECORD_LOCK}, whole milliseconds
     * @return a broker whose startup has returned
     * @throws IllegalArgumentException if {@code recordLock} is out of that range
     * @throws IllegalStateException if it does not start, with Kafka's reason
     */
    public static LocalKafka startWithShareGroups(Duration recordLock) {
        if (recordLock == null || recordLock.compareTo(MIN_RECORD_LOCK) < 0 || recordLock.compareTo(MAX_RECORD_LOCK) > 0) {
            throw new IllegalArgumentException("a share group's record lock must be between " + MIN_RECORD_LOCK.toMillis()
                    + " ms and " + MAX_RECORD_LOCK.toMillis() + " ms; got " + (recordLock == null ? null : recordLock.toMillis() + " ms"));
        }
        return start(recordLock);
    }

    private static LocalKafka start(Duration recordLock) {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            try {
                return startOnce(recordLock);
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("cannot start the in-process Kafka " + version() + " broker"
                + (recordLock == null ? "" : " with share groups") + " (" + START_ATTEMPTS + " attempts): "
                + last.getMessage(), last);
    }

    private static LocalKafka startOnce(Duration recordLock) {
        Path directory;
        try {
            directory = Files.createTempDirectory("local-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's directory", e);
        }
        KafkaRaftServer server = null;
        try {
            int[] ports = freePorts(2);
            Properties properties = properties(directory, ports[0], ports[1]);
            if (recordLock != null) {
                properties.putAll(shareGroupProperties(recordLock));
            }
            KafkaConfig config = new KafkaConfig(properties, false);
            format(directory, config, recordLock != null);
            server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            return new LocalKafka(server, config, directory, ports[0], ports[1], recordLock);
        } catch (Exception e) {
            if (server != null) {
                stop(server);
            }
            deleteTree(directory);
            throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e);
        }
    }

    /** One node, broker and controller, on 127.0.0.1 only, sized for one broker and quick tests. */
    private static Properties properties(Path directory, int port, int controllerPort) {
        Properties properties = new Properties();
        properties.putAll(Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", String.valueOf(NODE_ID)),
                Map.entry("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort),
                Map.entry("listeners", "PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("log.dirs", directory.toString()),
                Map.entry("num.partitions", "1"),
                Map.entry("default.replication.factor", "1"),
                Map.entry("offsets.topic.replication.factor", "1"),
                Map.entry("offsets.topic.num.partitions", "1"),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                Map.entry("share.coordinator.state.topic.min.isr", "1"),
                // a consumer that joins an empty group is served at once, not after the default 3 s
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                // a killed member is noticed when its session runs out: let a test's consumer ask for 1 s, not 6 s
                Map.entry("group.min.session.timeout.ms", "1000"),
                // a member of a consumer-protocol group (KIP-848) hears of a new assignment at its next heartbeat:
                // every half second here, not every 5 s (the broker's default and floor)
                Map.entry("group.consumer.min.heartbeat.interval.ms", "500"),
                Map.entry("group.consumer.heartbeat.interval.ms", "500"),
                Map.entry("auto.create.topics.enable", "false"),
                Map.entry("log.flush.interval.messages", "1000000"),
                Map.entry("delete.topic.enable", "true")));
        return properties;
    }

    /**
     * Share groups' settings on one node: the lock as asked, its floor lowered to Kafka's minimum so that a
     * group may ask for a short one too; the share coordinator's state topic on one partition (its
     * replication factor and min ISR, 1, are in every broker's settings).
     */
    private static Map<String, String> shareGroupProperties(Duration recordLock) {
        return Map.of(
                "group.share.record.lock.duration.ms", String.valueOf(recordLock.toMillis()),
                "group.share.min.record.lock.duration.ms", String.valueOf(MIN_RECORD_LOCK.toMillis()),
                "share.coordinator.state.topic.num.partitions", "1");
    }

    private static void format(Path directory, KafkaConfig config, boolean shareGroups) throws Exception {
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setClusterId(Uuid.randomUuid().toString())
                .setNodeId(NODE_ID)
                .setControllerListenerName("CONTROLLER")
                .setMetadataLogDirectory(config.metadataLogDir())
                .setDirectories(List.of(directory.toString()))
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION);
        if (shareGroups) {
            formatter.setFeatureLevel(SHARE_VERSION_FEATURE, SHARE_VERSION_LEVEL);
        }
        formatter.run();
    }

    /** Ports free on 127.0.0.1 now, all held at once so that they differ. */
    private static int[] freePorts(int count) {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket();
                sockets[i].setReuseAddress(true);
                sockets[i].bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + HOST, e);
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // a port we could not release is one the broker fails to bind: the start is retried
                    }
                }
            }
        }
    }

    /** {@code 127.0.0.1:port}, for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    /** The client listener's port. */
    public int port() {
        return port;
    }

    /** The controller listener's port (the quorum's; clients never use it). */
    public int controllerPort() {
        return controllerPort;
    }

    /** Whether share groups run on this broker ({@link #startWithShareGroups(Duration)}). */
    public boolean shareGroups() {
        return recordLock != null;
    }

    /**
     * How long a share group holds a delivered record here ({@code group.share.record.lock.duration.ms}).
     *
     * @throws IllegalStateException if share groups are off on this broker
     */
    public Duration recordLock() {
        if (recordLock == null) {
            throw new IllegalStateException("share groups are off on this broker: start it with startWithShareGroups");
        }
        return recordLock;
    }

    /** The directory that holds the broker's logs and metadata, removed by {@link #close()}. */
    public Path directory() {
        return directory;
    }

    /** The version of the Kafka classes this broker runs: the pinned build's. */
    public static String version() {
        return AppInfoParser.getVersion();
    }

    /**
     * Stops the broker (a controlled shutdown: its clients see it go away), waits for it to finish, and
     * starts it again on the same directory and the same two ports: the records, the topics and the
     * groups' committed offsets written before survive, as they do when a real broker is restarted. A
     * client keeps its bootstrap address and reconnects by itself.
     *
     * @throws IllegalStateException if the broker is closed, or does not come back (a port taken by
     *     another process meanwhile), with Kafka's reason; the broker is then left stopped
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("the broker is closed: it cannot be restarted");
        }
        stop(server);
        KafkaRaftServer again = new KafkaRaftServer(config, Time.SYSTEM);
        try {
            again.startup();
        } catch (RuntimeException e) {
            stop(again);
            throw new IllegalStateException("the in-process Kafka " + version() + " broker did not come back on "
                    + bootstrapServers() + ": " + e.getMessage(), e);
        }
        server = again;
    }

    /** Stops the broker, waits for it to finish, and removes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop(server);
        deleteTree(directory);
    }

    private static void stop(KafkaRaftServer server) {
        server.shutdown();
        server.awaitShutdown();
    }

    @Override
    public String toString() {
        return "Kafka " + version() + " (KRaft, in-process" + (recordLock == null ? "" : ", share groups, record lock "
                + recordLock.toMillis() + " ms") + ") at " + bootstrapServers();
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException ignored) {
                    // a file the broker still held; the temporary directory is the system's to clean
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // already gone
        }
    }
}
