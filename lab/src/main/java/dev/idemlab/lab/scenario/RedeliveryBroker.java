package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.testsupport.LocalKafka;
import dev.idemlab.idempotency.testsupport.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Kafka broker of one {@code lab scenario redelivery} run: the one given by {@code --kafka-url} (or
 * {@value TestKafka#URL_ENV}), used as a scratch broker whose topics the run creates and deletes, else a
 * private one the lab starts in its own JVM (Kafka's KRaft server on 127.0.0.1 ephemeral ports). Started
 * on first use, so that a usage error starts nothing; stopped by {@link #close()}, which the command
 * calls whether the run passed or not. {@link #withShareGroups} gives one on which share groups (KIP-932) run,
 * for {@code lab scenario share-lock-expiry}. Thread-safe.
 */
public final class RedeliveryBroker implements AutoCloseable {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    /** The acquisition lock of a private broker with share groups on: Kafka's shortest, so a table runs in seconds. */
    static final Duration PRIVATE_SHARE_RECORD_LOCK = LocalKafka.MIN_RECORD_LOCK;

    private final String url;
    private final boolean shareGroups;
    private TestKafka kafka;
    private int topics;
    private Integer minSessionTimeoutMs;
    private Duration shareRecordLock;

    /** A broker from {@code url}, or a private one when {@code url} is {@code null} or blank. */
    public RedeliveryBroker(String url) {
        this(url, false);
    }

    private RedeliveryBroker(String url, boolean shareGroups) {
        this.url = url;
        this.shareGroups = shareGroups;
    }

    /**
     * A broker on which share groups (KIP-932) run: the one at {@code url}, which must have them on, else a
     * private one started with them on and Kafka's shortest acquisition lock ({@link #PRIVATE_SHARE_RECORD_LOCK}, 1 s).
     */
    public static RedeliveryBroker withShareGroups(String url) {
        return new RedeliveryBroker(url, true);
    }

    /** The broker, started (or reached) on first call. */
    synchronized TestKafka kafka() {
        if (kafka == null) {
            kafka = shareGroups && (url == null || url.isBlank())
                    ? TestKafka.startPrivateWithShareGroups(PRIVATE_SHARE_RECORD_LOCK)
                    : TestKafka.provide(url);
        }
        return kafka;
    }

    /**
     * The shortest acquisition lock a share group may ask for on this broker: a private broker's, or the
     * {@code group.share.min.record.lock.duration.ms} of a broker given by URL (15 s unless its operator
     * lowered it), once the broker was found to have share groups on.
     *
     * @throws CannotStageException if the broker does not run share groups (the feature {@code share.version}
     *     is not finalized at 1 or more)
     */
    synchronized Duration shareRecordLock() {
        if (shareRecordLock == null) {
            if (kafka().isPrivate()) {
                shareRecordLock = kafka().local().recordLock();
            } else {
                requireShareGroups();
                String min = brokerConfig("group.share.min.record.lock.duration.ms");
                shareRecordLock = Duration.ofMillis(min == null ? 15_000 : Long.parseLong(min));
            }
        }
        return shareRecordLock;
    }

    private void requireShareGroups() {
        try (Admin admin = admin()) {
            FinalizedVersionRange share = admin.describeFeatures().featureMetadata()
                    .get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).finalizedFeatures()
                    .get(LocalKafka.SHARE_VERSION_FEATURE);
            if (share == null || share.maxVersionLevel() < 1) {
                throw new CannotStageException("share groups are off on " + describe() + " (the feature "
                        + LocalKafka.SHARE_VERSION_FEATURE + " is not finalized); turn them on (Admin#updateFeatures, "
                        + LocalKafka.SHARE_VERSION_FEATURE + "=1), or leave --kafka-url out for a private broker");
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the finalized features of " + describe() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the broker's features", e);
        }
    }

    /**
     * Sets share group {@code group} to start at the earliest record (a share group starts at the latest by
     * default, after the charge record) and to hold a delivered record for {@link #shareRecordLock()}; the
     * group is deleted with the run's topics from a broker given by URL.
     */
    void prepareShareGroup(String group) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        try (Admin admin = admin()) {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms",
                            String.valueOf(shareRecordLock().toMillis())), AlterConfigOp.OpType.SET))))
                    .all().get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot configure share group " + group + " on " + describe() + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while configuring the share group", e);
        }
        kafka().usedShareGroup(group);
    }

    /** A fresh topic of one partition for one run, deleted with the others when a given broker is closed. */
    synchronized String freshTopic(String name) {
        return kafka().createTopic(name + "-" + (++topics), 1);
    }

    /** One line for the report: {@code Kafka 4.1.2 at 127.0.0.1:40949 (in-process ...)}. */
    public synchronized String describe() {
        return kafka().toString();
    }

    /**
     * Sends the "charge order 42" record to partition 0 of {@code topic}, its idempotency key in the
     * adapter's default header, and waits until the broker has it.
     */
    void sendCharge(String topic, String key) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null,
                    "{\"order_id\":\"" + ScenarioSettings.ORDER_ID + "\",\"amount\":" + ScenarioSettings.AMOUNT + "}");
            record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot send the charge record to " + topic + " on " + describe()
                    + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending the charge record", e);
        }
    }

    /**
     * The offset {@code group} has committed for partition 0 of {@code topic}, as the broker's group
     * coordinator reports it; -1 when it has none.
     */
    long committedOffset(String group, String topic) {
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            OffsetAndMetadata committed = offsets.get(partition);
            return committed == null ? -1 : committed.offset();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the committed offsets of group " + group + " on " + describe()
                    + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the group's committed offsets", e);
        }
    }

    /** Remembers {@code group}, deleted with the run's topics from a broker given by URL when this closes. */
    void usedGroup(String group) {
        kafka().usedGroup(group);
    }

    /**
     * The shortest {@code session.timeout.ms} the broker lets a classic-protocol consumer ask for
     * ({@code group.min.session.timeout.ms}, read from the broker): a killed member is noticed only once
     * its session has run out, so the crash table asks for this, or a second where the broker allows less.
     */
    synchronized int sessionTimeoutMs() {
        if (minSessionTimeoutMs == null) {
            String min = brokerConfig("group.min.session.timeout.ms");
            minSessionTimeoutMs = min == null ? 6000 : Integer.parseInt(min);
        }
        return Math.max(minSessionTimeoutMs, 1000);
    }

    /** A setting of the broker's, {@code null} where it has none. */
    private String brokerConfig(String name) {
        try (Admin admin = admin()) {
            // every broker of a cluster is configured alike here: the first one answers for them
            String node = Integer.toString(admin.describeCluster().nodes()
                    .get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).iterator().next().id());
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node);
            Config config = admin.describeConfigs(List.of(broker)).all()
                    .get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).get(broker);
            ConfigEntry entry = config.get(name);
            return entry == null ? null : entry.value();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read " + name + " of " + describe() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the broker's configuration", e);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) PATIENCE.toMillis(),
                AdminClientConfig.CLIENT_ID_CONFIG, "idemlab-redelivery-admin"));
    }

    /** Stops a private broker, or deletes the run's topics on a given one. */
    @Override
    public synchronized void close() {
        if (kafka != null) {
            kafka.close();
        }
    }
}
