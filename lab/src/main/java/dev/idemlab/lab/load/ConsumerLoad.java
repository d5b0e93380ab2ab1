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
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Messages per second through the Kafka adapter ({@link IdempotentConsumer} over an
 * {@link IdempotentRecordHandler}) beside a bare consumer running the same handler on the same broker,
 * and each one's end-to-end latency at a paced rate; every figure checked against the provider's ledger.
 *
 * <p>One run is one consumer (one thread, as a Kafka consumer is driven), after a warm-up of up to
 * {@value #WARM_UP_RECORDS} records on a topic and a provider of their own:
 * <ol>
 *   <li><b>drain</b>: a topic is filled first with {@code messages} charge records, each with a key of its
 *       own (so that both loops do the same work for each), then consumed to the end; throughput is the
 *       deliveries after the first over the time from the first one handled to the last;</li>
 *   <li><b>paced</b>: once the consumer has its partitions, records are produced at {@code pacedRate} a
 *       second for {@code pacedSeconds}, a share of them sent twice (as a producer's retry or a
 *       redelivery would); the end-to-end latency of each delivery is the time from its producer's
 *       timestamp to the end of its handling (both clocks this machine's).</li>
 * </ol>
 * The handler sleeps {@code handlerTime} (the work a real handler does) and charges the provider in
 * this JVM. The bare consumer commits after each poll, as a plain at-least-once consumer does, and
 * charges a record sent twice again, which the ledger shows; the adapter must charge each key once and
 * leave none uncharged, in both phases. A consume gives up only after {@link #NO_PROGRESS} without a
 * record handled.
 */
public final class ConsumerLoad {

    /** How a run consumes: the bare loop, or the adapter on a store. */
    public enum Mode { BARE, ADAPTER }

    /** What one run does. */
    public record Settings(int messages, double duplicateShare, int partitions, Duration handlerTime,
                           int pacedRate, int pacedSeconds) { }

    /**
     * What the ledger holds for one phase's keys.
     *
     * @param keys the keys sent
     * @param charges the charges made for them
     * @param chargedTwice keys charged more than once
     * @param neverCharged keys never charged
     */
    public record Ledger(int keys, int charges, int chargedTwice, int neverCharged) {

        static Ledger of(FakePaymentProvider provider, Set<String> keys) {
            Map<String, Integer> perKey = new HashMap<>();
            for (Charge charge : provider.ledger()) {
                if (keys.contains(charge.orderId())) {
                    perKey.merge(charge.orderId(), 1, Integer::sum);
                }
            }
            int charges = perKey.values().stream().mapToInt(Integer::intValue).sum();
            int twice = (int) perKey.values().stream().filter(count -> count > 1).count();
            return new Ledger(keys.size(), charges, twice, keys.size() - perKey.size());
        }

        /** One charge for every key, none twice, none missing. */
        public boolean oncePerKey() {
            return charges == keys && chargedTwice == 0 && neverCharged == 0;
        }
    }

    /** One run's figures, every one read from what happened. */
    public record Result(Mode mode, String store, int drained, double perSecond, Ledger drainLedger, int pacedDeliveries,
                         Ledger pacedLedger, long p50Micros, long p99Micros) {

        /** Whether the ledger holds exactly one charge for every key sent, in both phases. */
        public boolean oncePerKey() {
            return drainLedger.oncePerKey() && pacedLedger.oncePerKey();
        }
    }

    /** How long a consume waits without a record handled before it gives up. */
    static final Duration NO_PROGRESS = Duration.ofMinutes(1);
    private static final String OPERATION = "orders.charge";
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    private static final int WARM_UP_RECORDS = 1000;
    private static final long SEND_TIMEOUT_S = 60;

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
     * @throws IllegalStateException if the records cannot be produced, or the consumer stops handling them
     */
    public Result run(Mode mode, String storeName, IdempotencyStore store) throws InterruptedException {
        String label = mode == Mode.BARE ? "bare" : "adapter on " + storeName;
        int run = ++runs;
        warmUp(mode, store, run);
        FakePaymentProvider provider = provider();
        Loop loop = loop(mode, store, provider);

        String drainTopic = kafka.createTopic("consumer-load-drain-" + run, settings.partitions());
        progress.accept(label + ": filling " + drainTopic + " with " + settings.messages() + " records");
        Set<String> drainKeys = new LinkedHashSet<>();
        for (int i = 0; i < settings.messages(); i++) {
            drainKeys.add("drain-" + run + "-" + i);
        }
        send(drainTopic, new ArrayList<>(drainKeys), 0);
        progress.accept(label + ": draining " + drainKeys.size() + " records");
        double perSecond = loop.consume(drainTopic, drainKeys.size(), null, () -> { });
        Ledger drained = Ledger.of(provider, drainKeys);

        List<String> paced = pacedOrder(run);
        Set<String> pacedKeys = new LinkedHashSet<>(paced);
        progress.accept(String.format(java.util.Locale.ROOT, "%s: %,.0f msg/s; pacing %d/s for %d s (%,d deliveries, "
                + "%,d keys)", label, perSecond, settings.pacedRate(), settings.pacedSeconds(), paced.size(), pacedKeys.size()));
        String pacedTopic = kafka.createTopic("consumer-load-paced-" + run, settings.partitions());
        Histogram latency = LatencyRecorder.newHistogram();
        CountDownLatch assigned = new CountDownLatch(1);
        AtomicReference<RuntimeException> sendFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                assigned.await();
                send(pacedTopic, paced, settings.pacedRate());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                sendFailure.set(e);
            }
        }, "consumer-load-producer");
        producer.setDaemon(true);
        producer.start();
        try {
            loop.consume(pacedTopic, paced.size(), latency, assigned::countDown);
        } finally {
            assigned.countDown();
            producer.join(TimeUnit.SECONDS.toMillis(SEND_TIMEOUT_S));
        }
        if (sendFailure.get() != null) {
            throw sendFailure.get();
        }
        return new Result(mode, mode == Mode.BARE ? "-" : storeName, drainKeys.size(), perSecond, drained, paced.size(),
                Ledger.of(provider, pacedKeys), latency.getValueAtPercentile(50), latency.getValueAtPercentile(99));
    }

    /** The paced phase's deliveries: a key each, every n-th sent a second time right after it. */
    private List<String> pacedOrder(int run) {
        List<String> order = new ArrayList<>();
        int keys = settings.pacedRate() * settings.pacedSeconds();
        long again = Math.round(keys * settings.duplicateShare());
        for (int i = 0; i < keys; i++) {
            String key = "paced-" + run + "-" + i;
            order.add(key);
            if (again > 0 && (long) i * again % keys < again) {
                order.add(key);
            }
        }
        return order;
    }

    /**
     * Drains a small topic first with a loop of the same kind on a provider of its own, unmeasured, so that
     * no loop is timed while this JVM still compiles its code (the first run would pay for every later one).
     */
    private void warmUp(Mode mode, IdempotencyStore store, int run) throws InterruptedException {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < Math.min(WARM_UP_RECORDS, settings.messages()); i++) {
            keys.add("warm-up-" + run + "-" + i);
        }
        String topic = kafka.createTopic("consumer-load-warm-up-" + run, settings.partitions());
        send(topic, keys, 0);
        loop(mode, store, provider()).consume(topic, keys.size(), null, () -> { });
    }

    private static FakePaymentProvider provider() {
        return FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(false).build();
    }

    private Loop loop(Mode mode, IdempotencyStore store, FakePaymentProvider provider) {
        return mode == Mode.BARE ? new BareLoop(handler(provider))
                : new AdapterLoop(IdempotencyCoordinator.builder(store).config(IdempotencyConfig.ofDefaults()).build(),
                        provider);
    }

    /** The handler both loops run: the work, then the charge (under the record's downstream key, if any). */
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

    /**
     * Sends a record per key in {@code keys}, in order, {@code perSecond} of them a second (0: as fast as
     * the producer goes), and waits until the broker acknowledged every one.
     *
     * @throws IllegalStateException naming the topic when a send fails or is not acknowledged in time
     */
    private void send(String topic, List<String> keys, int perSecond) {
        long every = perSecond > 0 ? TimeUnit.SECONDS.toNanos(1) / perSecond : 0;
        long start = System.nanoTime();
        List<Future<RecordMetadata>> sent = new ArrayList<>(keys.size());
        // Not the idempotent producer: on the lab's one in-process broker, producers made one after another
        // were refused out-of-order sequence numbers. Its retries stay (a fresh topic's leader is not known at
        // once, and a send refused for it wrote nothing); a send retried after its write landed would be a
        // duplicate, and the ledger of the paced phase would show it on the bare consumer's row.
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 1, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < keys.size(); i++) {
                long wait = start + i * every - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                sent.add(producer.send(record(topic, keys.get(i))));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : sent) {
                ack.get(SEND_TIMEOUT_S, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot send the charge records to " + topic + " on " + kafka + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending to " + topic, e);
        }
    }

    private static ProducerRecord<String, String> record(String topic, String key) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, "{\"orderId\":\"" + key + "\",\"amount\":100}");
        record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** A consumer loop that handles a topic's deliveries and says how fast. */
    private abstract class Loop {
        private int groups;

        /**
         * Consumes {@code topic} until {@code deliveries} were handled, recording each one's end-to-end
         * latency when {@code latency} is given, and calling {@code assigned} once the consumer has its
         * partitions.
         *
         * @return the deliveries after the first, a second, from the first one's end to the last one's
         */
        abstract double consume(String topic, int deliveries, Histogram latency, Runnable assigned);

        Map<String, Object> config(String topic) {
            String group = topic + "-" + getClass().getSimpleName() + "-" + (++groups);
            kafka.usedGroup(group);
            return new HashMap<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, group,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20));
        }

        static void recordLatency(Histogram latency, ConsumerRecord<String, String> record) {
            if (latency != null) {
                long micros = TimeUnit.MILLISECONDS.toMicros(Math.max(0, System.currentTimeMillis() - record.timestamp()));
                latency.recordValue(Math.max(1, Math.min(latency.getHighestTrackableValue(), micros)));
            }
        }

        static double perSecond(int deliveries, long firstNanos, long lastNanos) {
            return lastNanos > firstNanos ? (deliveries - 1) * 1e9 / (lastNanos - firstNanos) : 0;
        }

        /** The deadline moved on by {@link #NO_PROGRESS} from now when a record was handled since. */
        static void checkProgress(long lastProgress, String topic, int handled, int deliveries) {
            if (System.nanoTime() - lastProgress > NO_PROGRESS.toNanos()) {
                throw new IllegalStateException("only " + handled + " of " + deliveries + " deliveries of " + topic
                        + " were handled: none for " + NO_PROGRESS.toSeconds() + " s");
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
        double consume(String topic, int deliveries, Histogram latency, Runnable assigned) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config(topic),
                    new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                int handled = 0;
                long first = -1;
                long last = -1;
                long progressed = System.nanoTime();
                while (handled < deliveries) {
                    checkProgress(progressed, topic, handled, deliveries);
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    if (!consumer.assignment().isEmpty()) {
                        assigned.run();
                    }
                    if (records.isEmpty()) {
                        continue;
                    }
                    Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
                    for (ConsumerRecord<String, String> record : records) {
                        work.charge(record.key(), null);
                        recordLatency(latency, record);
                        positions.put(new TopicPartition(record.topic(), record.partition()),
                                new OffsetAndMetadata(record.offset() + 1));
                        handled++;
                        last = System.nanoTime();
                        first = first < 0 ? last : first;
                    }
                    progressed = last;
                    consumer.commitSync(positions);
                }
                return perSecond(handled, first, last);
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
        double consume(String topic, int deliveries, Histogram latency, Runnable assigned) {
            Map<String, Object> config = config(topic);
            IdempotentConsumer.requireManualCommits(config);
            int[] handled = {0};
            long[] first = {-1};
            long[] last = {-1};
            KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                    new StringDeserializer());
            try (IdempotentConsumer<String, String> loop = IdempotentConsumer.of(consumer, handler)) {
                loop.observe((record, result) -> {
                    if (result.outcome() != RecordOutcome.IN_FLIGHT) {
                        recordLatency(latency, record);
                        handled[0]++;
                        last[0] = System.nanoTime();
                        first[0] = first[0] < 0 ? last[0] : first[0];
                    }
                });
                loop.subscribe(List.of(topic));
                long progressed = System.nanoTime();
                while (handled[0] < deliveries) {
                    checkProgress(Math.max(progressed, last[0]), topic, handled[0], deliveries);
                    PollSummary poll = loop.poll(Duration.ofMillis(100));
                    // the loop drives the consumer on this thread, so reading its assignment here is safe
                    if (!consumer.assignment().isEmpty()) {
                        assigned.run();
                    }
                    if (!poll.failures().isEmpty()) {
                        throw new IllegalStateException("the adapter could not handle a record of " + topic + ": "
                                + poll.failures().get(0).failure(), poll.failures().get(0).failure());
                    }
                }
            }
            return perSecond(handled[0], first[0], last[0]);
        }
    }
}
