package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.kafka.IdempotentConsumer;
import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.kafka.PollSummary;
import dev.idemlab.idempotency.kafka.RecordOutcome;
import dev.idemlab.idempotency.kafka.RedeliveryPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.testsupport.TestKafka;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Messages per second through the Kafka adapter ({@link IdempotentConsumer} over an
 * {@link IdempotentRecordHandler}) beside a bare consumer running the same handler on the same broker,
 * and each one's end-to-end latency at a paced rate; every figure checked against the provider's ledger.
 *
 * <p>One run is one consumer (one thread, as a Kafka consumer is driven) on a fresh topic, after a
 * warm-up of up to {@value #WARM_UP_RECORDS} records on a topic and a provider of their own:
 * <ol>
 *   <li><b>drain</b>: the topic is filled first ({@code messages} charge records with keys of their own,
 *       and a share of them sent twice, as a producer's retry or a redelivery would), then consumed to the
 *       end; throughput is the deliveries after the first over the time from the first delivery handled
 *       to the last;</li>
 *   <li><b>paced</b>: records are produced at {@code pacedRate} a second for {@code pacedSeconds} while the
 *       consumer runs; the end-to-end latency of each is the time from its producer's timestamp to the end
 *       of its handling (both clocks this machine's).</li>
 * </ol>
 * The handler sleeps {@code handlerTime} (the work a real handler does) and charges the provider in
 * this JVM. The bare consumer commits after each poll, as a plain at-least-once consumer does; its
 * duplicates are charged again, which the ledger shows. The adapter must charge each key once and
 * leave none uncharged.
 */
public final class ConsumerLoad {

    /** How a run consumes: the bare loop, or the adapter on a store. */
    public enum Mode { BARE, ADAPTER }

    /** What one run does. */
    public record Settings(int messages, double duplicateShare, int partitions, Duration handlerTime,
                           int pacedRate, int pacedSeconds) { }

    /** One run's figures, every one read from what happened. */
    public record Result(Mode mode, String store, int deliveries, int keys, int charges, int keysCharged,
                         int keysChargedTwice, double perSecond, long p50Micros, long p99Micros, int pacedDeliveries,
                         int pacedKeys, int pacedCharges) {

        /** Whether the ledger holds exactly one charge for every key sent, in both phases. */
        public boolean oncePerKey() {
            return charges == keys && keysCharged == keys && keysChargedTwice == 0 && pacedCharges == pacedKeys;
        }
    }

    private static final String OPERATION = "orders.charge";
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    private static final Duration PATIENCE = Duration.ofMinutes(2);
    private static final int WARM_UP_RECORDS = 1000;

    private final TestKafka kafka;
    private final Settings settings;
    private final Consumer<String> progress;
    private int runs;

    public ConsumerLoad(TestKafka kafka, Settings settings, Consumer<String> progress) {
        this.kafka = kafka;
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Runs both phases in {@code mode}, on {@code store} for the adapter ({@code null} for the bare loop).
     *
     * @throws IllegalStateException if the records cannot be produced or are not all handled in time
     */
    public Result run(Mode mode, String storeName, IdempotencyStore store) throws InterruptedException {
        String label = mode == Mode.BARE ? "bare" : "adapter on " + storeName;
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(false).build();
        IdempotencyCoordinator coordinator = mode == Mode.BARE ? null
                : IdempotencyCoordinator.builder(store).config(IdempotencyConfig.ofDefaults()).build();
        Loop loop = mode == Mode.BARE ? new BareLoop(handler(provider)) : new AdapterLoop(coordinator, provider);

        int run = ++runs;
        warmUp(mode, store, run);
        String drainTopic = kafka.createTopic("consumer-load-drain-" + run, settings.partitions());
        progress.accept(label + ": filling " + drainTopic + " with " + settings.messages() + " records");
        Sent drain = produceAll(drainTopic);
        progress.accept(label + ": draining " + drain.deliveries() + " deliveries");
        Drained drained = loop.consume(drainTopic, drain.deliveries(), null);
        Ledger afterDrain = Ledger.of(provider, drain.keys());
        progress.accept(label + String.format(": %,.0f msg/s; pacing %d/s for %d s", drained.perSecond(),
                settings.pacedRate(), settings.pacedSeconds()));

        String pacedTopic = kafka.createTopic("consumer-load-paced-" + run, settings.partitions());
        Histogram latency = new Histogram(1, TimeUnit.MINUTES.toMicros(2), 3);
        Thread producer = new Thread(() -> producePaced(pacedTopic), "consumer-load-producer");
        producer.setDaemon(true);
        int pacedDeliveries = settings.pacedRate() * settings.pacedSeconds();
        producer.start();
        loop.consume(pacedTopic, pacedDeliveries, latency);
        producer.join(PATIENCE.toMillis());
        Set<String> pacedKeys = new HashSet<>();
        for (int i = 0; i < pacedDeliveries; i++) {
            pacedKeys.add(pacedKey(i));
        }
        int pacedCharges = provider.ledger().size() - afterDrain.charges();
        return new Result(mode, mode == Mode.BARE ? "-" : storeName, drain.deliveries(), drain.keys().size(),
                afterDrain.charges(), afterDrain.keysCharged(), afterDrain.keysChargedTwice(), drained.perSecond(),
                latency.getValueAtPercentile(50), latency.getValueAtPercentile(99), pacedDeliveries, pacedKeys.size(),
                pacedCharges);
    }

    /**
     * Drains a small topic first with a loop of the same kind on its own provider, unmeasured, so that
     * neither loop is timed while this JVM still compiles its code (the first run would pay for every later).
     */
    private void warmUp(Mode mode, IdempotencyStore store, int run) throws InterruptedException {
        int records = Math.min(WARM_UP_RECORDS, settings.messages());
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(false).build();
        Loop loop = mode == Mode.BARE ? new BareLoop(handler(provider))
                : new AdapterLoop(IdempotencyCoordinator.builder(store).config(IdempotencyConfig.ofDefaults()).build(), provider);
        String topic = kafka.createTopic("consumer-load-warm-up-" + run, settings.partitions());
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < records; i++) {
                producer.send(record(topic, "warm-up-" + run + "-" + i));
            }
            producer.flush();
        }
        loop.consume(topic, records, null);
    }

    /** The handler both loops run: the work, then the charge under the record's downstream key. */
    private RecordWork handler(FakePaymentProvider provider) {
        long nanos = settings.handlerTime().toNanos();
        return (key, downstreamKey) -> {
            if (nanos > 0) {
                LockSupport.parkNanos(nanos);
            }
            return provider.charge(key, 100, downstreamKey);
        };
    }

    @FunctionalInterface
    private interface RecordWork {
        Charge charge(String key, String downstreamKey);
    }

    private record Sent(int deliveries, Set<String> keys) { }

    private record Drained(double perSecond) { }

    private record Ledger(int charges, int keysCharged, int keysChargedTwice) {
        static Ledger of(FakePaymentProvider provider, Set<String> keys) {
            Map<String, Integer> perKey = new HashMap<>();
            for (Charge charge : provider.ledger()) {
                perKey.merge(charge.orderId(), 1, Integer::sum);
            }
            int charged = 0;
            int twice = 0;
            for (String key : keys) {
                int count = perKey.getOrDefault(key, 0);
                charged += count > 0 ? 1 : 0;
                twice += count > 1 ? 1 : 0;
            }
            return new Ledger(provider.ledger().size(), charged, twice);
        }
    }

    /** Fills {@code topic}: every key once, and every n-th again after the rest, as a redelivery would. */
    private Sent produceAll(String topic) {
        Set<String> keys = new HashSet<>();
        List<String> order = new ArrayList<>();
        for (int i = 0; i < settings.messages(); i++) {
            String key = "drain-" + i;
            keys.add(key);
            order.add(key);
        }
        int again = (int) Math.round(settings.messages() * settings.duplicateShare());
        for (int i = 0; i < again; i++) {
            order.add(order.get((int) ((long) i * settings.messages() / Math.max(1, again))));
        }
        try (KafkaProducer<String, String> producer = producer()) {
            for (String key : order) {
                producer.send(record(topic, key));
            }
            producer.flush();
        }
        return new Sent(order.size(), keys);
    }

    private void producePaced(String topic) {
        long every = TimeUnit.SECONDS.toNanos(1) / settings.pacedRate();
        long start = System.nanoTime();
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < settings.pacedRate() * settings.pacedSeconds(); i++) {
                long due = start + i * every;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                producer.send(record(topic, pacedKey(i)));
            }
            producer.flush();
        }
    }

    private static String pacedKey(int i) {
        return "paced-" + i;
    }

    private static ProducerRecord<String, String> record(String topic, String key) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, "{\"orderId\":\"" + key + "\",\"amount\":100}");
        record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 1,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false),
                new StringSerializer(), new StringSerializer());
    }

    private Map<String, Object> consumerConfig(String group) {
        return new HashMap<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20));
    }

    /** A consumer loop that handles {@code deliveries} records of a topic and says how fast. */
    private abstract class Loop {
        private int groups;

        /** Consumes {@code topic} until {@code deliveries} were handled; records end-to-end latency if asked. */
        abstract Drained consume(String topic, int deliveries, Histogram latency) throws InterruptedException;

        String group(String topic) {
            return topic + "-" + getClass().getSimpleName() + "-" + (++groups);
        }

        void record(Histogram latency, ConsumerRecord<String, String> record) {
            if (latency != null) {
                long micros = TimeUnit.MILLISECONDS.toMicros(Math.max(0, System.currentTimeMillis() - record.timestamp()));
                latency.recordValue(Math.max(1, Math.min(latency.getHighestTrackableValue(), micros)));
            }
        }

        /** Deliveries after the first, over the time from the first one's end to the last one's. */
        static double perSecond(int deliveries, long firstNanos, long lastNanos) {
            return lastNanos > firstNanos ? (deliveries - 1) * 1e9 / (lastNanos - firstNanos) : 0;
        }

        void checkDeadline(long deadline, String topic, int handled, int deliveries) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + handled + " of " + deliveries + " deliveries of " + topic
                        + " were handled within " + PATIENCE.toMinutes() + " minutes");
            }
        }
    }

    /** A plain at-least-once consumer: handle every record polled, then commit the poll's positions. */
    private final class BareLoop extends Loop {
        private final RecordWork work;

        BareLoop(RecordWork work) {
            this.work = work;
        }

        @Override
        Drained consume(String topic, int deliveries, Histogram latency) {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(group(topic)),
                    new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                int handled = 0;
                long first = -1;
                long last = -1;
                while (handled < deliveries) {
                    checkDeadline(deadline, topic, handled, deliveries);
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    if (records.isEmpty()) {
                        continue;
                    }
                    Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
                    for (ConsumerRecord<String, String> record : records) {
                        work.charge(record.key(), null);
                        record(latency, record);
                        positions.put(new TopicPartition(record.topic(), record.partition()),
                                new OffsetAndMetadata(record.offset() + 1));
                        handled++;
                        last = System.nanoTime();
                        first = first < 0 ? last : first;
                    }
                    consumer.commitSync(positions);
                }
                return new Drained(perSecond(handled, first, last));
            }
        }
    }

    /** The adapter: the same work under the coordinator, through its poll loop. */
    private final class AdapterLoop extends Loop {
        private final IdempotentRecordHandler<String, String, Charge> handler;

        AdapterLoop(IdempotencyCoordinator coordinator, FakePaymentProvider provider) {
            RecordWork work = ConsumerLoad.this.handler(provider);
            this.handler = IdempotentRecordHandler.<String, String, Charge>builder(coordinator, OPERATION, CHARGE,
                            (record, context) -> work.charge(record.key(), context.downstreamKey()))
                    .redelivery(RedeliveryPolicy.WAIT).build();
        }

        @Override
        Drained consume(String topic, int deliveries, Histogram latency) {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            Map<String, Object> config = consumerConfig(group(topic));
            IdempotentConsumer.requireManualCommits(config);
            int[] handled = {0};
            long[] first = {-1};
            long[] last = {-1};
            try (IdempotentConsumer<String, String> loop = IdempotentConsumer.of(
                    new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer()), handler)) {
                loop.observe((record, result) -> {
                    if (result.outcome() != RecordOutcome.IN_FLIGHT) {
                        record(latency, record);
                        handled[0]++;
                        last[0] = System.nanoTime();
                        first[0] = first[0] < 0 ? last[0] : first[0];
                    }
                });
                loop.subscribe(List.of(topic));
                while (handled[0] < deliveries) {
                    checkDeadline(deadline, topic, handled[0], deliveries);
                    PollSummary poll = loop.poll(Duration.ofMillis(100));
                    if (!poll.failures().isEmpty()) {
                        throw new IllegalStateException("the adapter could not handle a record of " + topic + ": "
                                + poll.failures().get(0).failure(), poll.failures().get(0).failure());
                    }
                }
            }
            return new Drained(perSecond(handled[0], first[0], last[0]));
        }
    }
}
