package dev.idemlab.idempotency.testsupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Kafka broker a test or a lab run uses: the one given by {@value #URL_ENV} (or by the caller, the
 * lab's {@code --kafka-url}), else a private {@link LocalKafka} in this JVM. One way to start a broker
 * for the library's tests and the lab alike.
 *
 * <p>A broker given by URL is used as a scratch broker: every topic goes through
 * {@link #createTopic(String, int)}, which puts it under {@link #topicPrefix()} (of this object
 * alone), and {@link #close()} deletes the topics it created and leaves the broker running. A private
 * broker is stopped by {@link #close()}, with its directory.
 *
 * <p>{@link #toString()} says which broker, its version and where it came from; {@link #provide()}
 * prints that line, so that a run's output names the broker it ran against.
 *
 * <p>Needs {@code org.apache.kafka:kafka_2.13} (the broker) on the class path for a private broker and
 * {@code kafka-clients} always: this module declares both optional, so a module that starts a broker
 * names them itself. Thread-safe.
 */
public final class TestKafka implements AutoCloseable {

    /** The environment variable naming a broker of the user's: {@code kafka://host:port[,host:port]} or {@code host:port}. */
    public static final String URL_ENV = "IDEMLAB_KAFKA_URL";

    private static final long ADMIN_TIMEOUT_S = 30;

    private final String bootstrapServers;
    private final ServerOrigin origin;
    private volatile String version;
    private final String from;
    private final LocalKafka local;
    private final String topicPrefix;
    private final List<String> topics = new ArrayList<>();
    private final List<String> groups = new ArrayList<>();
    private final List<String> shareGroups = new ArrayList<>();
    private Admin admin;
    private boolean closed;

    private TestKafka(String bootstrapServers, ServerOrigin origin, String version, String from, LocalKafka local) {
        this.bootstrapServers = bootstrapServers;
        this.origin = origin;
        this.version = version;
        this.from = from;
        this.local = local;
        byte[] seed = new byte[4];
        new SecureRandom().nextBytes(seed);
        this.topicPrefix = "idemlab-" + HexFormat.of().formatHex(seed) + "-";
    }

    /**
     * The broker given by {@value #URL_ENV}, else a private one in this JVM. Prints which one it is.
     *
     * @throws IllegalStateException if the URL is malformed or its broker does not answer, or the
     *     private broker does not start
     */
    public static TestKafka provide() {
        TestKafka kafka = provide(System.getenv(URL_ENV));
        System.out.println("kafka: " + kafka);
        return kafka;
    }

    /** The broker at {@code url} when it is given (not blank), else a private one; prints nothing. */
    public static TestKafka provide(String url) {
        if (url != null && !url.isBlank()) {
            return ofUrl(url.strip());
        }
        return startPrivate();
    }

    /** A private broker in this JVM, never the one given by URL: for a test that stops or restarts it. */
    public static TestKafka startPrivate() {
        LocalKafka local = LocalKafka.start();
        return new TestKafka(local.bootstrapServers(), ServerOrigin.IN_PROCESS, LocalKafka.version(),
                ServerOrigin.IN_PROCESS.description() + " (Kafka's KafkaRaftServer, KRaft, broker+controller)", local);
    }

    /**
     * A private broker on which share groups (KIP-932) run, holding a delivered record for {@code recordLock}
     * ({@link LocalKafka#startWithShareGroups(Duration)}).
     *
     * @throws IllegalArgumentException if {@code recordLock} is out of Kafka's range
     */
    public static TestKafka startPrivateWithShareGroups(Duration recordLock) {
        LocalKafka local = LocalKafka.startWithShareGroups(recordLock);
        return new TestKafka(local.bootstrapServers(), ServerOrigin.IN_PROCESS, LocalKafka.version(),
                ServerOrigin.IN_PROCESS.description() + " (Kafka's KafkaRaftServer, KRaft, broker+controller, share groups"
                        + " on, record lock " + recordLock.toMillis() + " ms)", local);
    }

    private static TestKafka ofUrl(String url) {
        String servers = bootstrapServersOf(url);
        TestKafka kafka = new TestKafka(servers, ServerOrigin.URL, "unknown",
                ServerOrigin.URL.description() + ", used as a scratch broker: topics under a prefix of the run's,"
                        + " deleted when it ends", null);
        try {
            kafka.version = kafka.metadataVersion();
        } catch (RuntimeException e) {
            kafka.close();
            throw new IllegalStateException("the Kafka broker given by URL (" + servers + ") does not answer: "
                    + e.getMessage() + ". Start it, or leave " + URL_ENV + " unset for a private broker", e);
        }
        return kafka;
    }

    /**
     * {@code host:port[,host:port]} from {@code kafka://host:port,...} or the bare list.
     *
     * @throws IllegalStateException naming the rule, if an entry is not {@code host:port}
     */
    public static String bootstrapServersOf(String url) {
        String list = url.startsWith("kafka://") ? url.substring("kafka://".length()) : url;
        if (list.endsWith("/")) {
            list = list.substring(0, list.length() - 1);
        }
        for (String entry : list.split(",")) {
            if (!entry.matches("[^:/\\s]+:\\d{1,5}")) {
                throw new IllegalStateException("a Kafka URL is kafka://host:port[,host:port] or host:port[,host:port];"
                        + " got '" + url + "'");
            }
        }
        return list;
    }

    /** What the broker says of itself: its finalized {@code metadata.version} level (a broker given by URL). */
    private String metadataVersion() {
        try {
            Map<String, FinalizedVersionRange> finalized = admin().describeFeatures().featureMetadata()
                    .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS).finalizedFeatures();
            FinalizedVersionRange level = finalized.get("metadata.version");
            return "unknown (metadata.version level " + (level == null ? "?" : level.maxVersionLevel()) + ")";
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@code host:port[,host:port]}, for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Where the broker came from. */
    public ServerOrigin origin() {
        return origin;
    }

    /** The broker's version: the pinned Kafka's for a private broker; for one given by URL, what it told. */
    public String version() {
        return version;
    }

    /** Where it came from, in words, for a report. */
    public String from() {
        return from;
    }

    /** Whether this object started the broker (and {@link #close()} stops it). */
    public boolean isPrivate() {
        return local != null;
    }

    /** The private broker, for a test that inspects it; {@code null} for one given by URL. */
    public LocalKafka local() {
        return local;
    }

    /** What every topic this object creates starts with. */
    public String topicPrefix() {
        return topicPrefix;
    }

    /**
     * Creates {@code topicPrefix() + name} with {@code partitions} partitions and replication factor 1,
     * and remembers it for {@link #close()}.
     *
     * @return the topic's full name
     * @throws IllegalStateException if the broker refuses or does not answer
     */
    public synchronized String createTopic(String name, int partitions) {
        String topic = topicPrefix + name;
        try {
            admin().createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
                    .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + topic + " on " + bootstrapServers + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        }
        topics.add(topic);
        return topic;
    }

    /**
     * Remembers a consumer group the run used, so that {@link #close()} deletes it, with the topics, from a
     * broker given by URL (a private broker goes with its groups).
     */
    public synchronized void usedGroup(String group) {
        if (local == null) {
            groups.add(group);
        }
    }

    /** As {@link #usedGroup(String)}, for a share group (KIP-932), which Kafka deletes by another call. */
    public synchronized void usedShareGroup(String group) {
        if (local == null) {
            shareGroups.add(group);
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(ADMIN_TIMEOUT_S),
                    AdminClientConfig.CLIENT_ID_CONFIG, "idemlab-admin"));
        }
        return admin;
    }

    /**
     * Deletes the consumer groups and share groups the run used and the topics this object created (on a broker given by
     * URL), and stops a private broker.
     * Idempotent; a deletion that fails is reported on standard error, never thrown, so that it does
     * not hide the test's own failure.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (local == null && !groups.isEmpty()) {
                admin().deleteConsumerGroups(groups).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("kafka: could not delete the run's consumer groups " + groups + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (local == null && !shareGroups.isEmpty()) {
                admin().deleteShareGroups(shareGroups).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("kafka: could not delete the run's share groups " + shareGroups + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (local == null && !topics.isEmpty()) {
                admin().deleteTopics(topics).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("kafka: could not delete the run's topics " + topics + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (admin != null) {
                admin.close();
            }
            if (local != null) {
                local.close();
            }
        }
    }

    @Override
    public String toString() {
        return "Kafka " + version + " at " + bootstrapServers + " (" + from + ")";
    }
}
