package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.testsupport.TestKafka;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.scenario.ChildHolder;
import dev.idemlab.lab.scenario.StoreEndpoint;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The nemesis on consumers ({@code lab nemesis --through kafka}): a seeded stream of charge records
 * ({@link ConsumerWorkload}) into a topic of {@value #PARTITIONS} partitions on the lab's broker (or one
 * given by URL), a group of members through the Kafka adapter on the run's store ({@value #CHILDREN} in
 * child JVMs, which the nemesis kills and stops past their session and poll interval, one or more in the
 * lab's JVM, which join and leave to force rebalances), the broker restarted, and the store's faults as
 * the nemesis plays them ({@link NemesisTarget}), one at a time on a schedule drawn from the seed
 * ({@link FaultSchedule}). Once the stream and the faults are over, the run waits until the group has
 * committed the end of every partition (or a bound passes), then reads the ledger and the broker's offsets
 * and hands the history to {@link ConsumerChecker}. Every member and child is stopped, and every child
 * reaped, on every path.
 */
public final class ConsumerNemesis {

    static final int PARTITIONS = 4;
    static final int CHILDREN = 2;
    /** The members' session timeout and poll interval: a stop longer than both takes a member out of the group. */
    static final int SESSION_TIMEOUT_MS = 3000;
    static final int MAX_POLL_INTERVAL_MS = 3000;
    /** How long the run waits, after the stream, for the group to commit the end of every partition. */
    static final Duration SETTLE_BOUND = Duration.ofSeconds(90);

    /**
     * One run's settings.
     *
     * @param faults whether the nemesis plays its schedule and the stream has records slower than the poll
     *     interval (off: one member of the lab's alone, no child JVM, no slow record: the quickest proof that
     *     a sabotaged consumer is caught)
     * @param kafkaUrl a broker of the user's, used as a scratch broker, or {@code null} for the lab's own
     */
    public record Settings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage,
                           boolean faults, String kafkaUrl) { }

    private final Settings settings;
    private final Consumer<String> progress;
    private final List<ConsumerEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final List<ConsumerFault> faults = Collections.synchronizedList(new ArrayList<>());
    private ConsumerGroup group;

    private ConsumerNemesis(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Runs the nemesis on consumers against {@code backend}'s store.
     *
     * @throws IllegalArgumentException if the store is one no child JVM can reach (memory)
     */
    public static ConsumerNemesisResult run(StoreBackend backend, Settings settings, Consumer<String> progress)
            throws Exception {
        return new ConsumerNemesis(settings, progress).run(backend);
    }

    private ConsumerNemesisResult run(StoreBackend backend) throws Exception {
        long began = System.nanoTime();
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO)
                .deduplicateOnKey(settings.downstreamKey()).build();
        ConsumerWorkload workload = ConsumerWorkload.draw(settings.seed(), settings.duration(), PARTITIONS,
                MAX_POLL_INTERVAL_MS, settings.faults());
        try (TestKafka kafka = TestKafka.provide(settings.kafkaUrl());
             NemesisTarget target = NemesisTarget.open(backend, settings.lease(), settings.seed());
             ProviderService service = ProviderService.start(provider)) {
            StoreEndpoint endpoint = StoreEndpoint.sameAs(target.store()).orElseThrow(() -> new IllegalArgumentException(
                    "the nemesis on consumers needs a store its child JVMs can reach (redis or postgres), not "
                            + backend.name()));
            progress.accept("kafka: " + kafka);
            String topic = kafka.createTopic("nemesis-consumers", PARTITIONS);
            String groupId = topic + "-group";
            ConsumerMember.Settings members = new ConsumerMember.Settings(kafka.bootstrapServers(), topic, groupId,
                    settings.lease(), SESSION_TIMEOUT_MS, MAX_POLL_INTERVAL_MS, settings.sabotage());
            FaultSchedule schedule = FaultSchedule.draw(settings.seed(), settings.duration(),
                    settings.faults() ? kinds(target, kafka) : List.of(), FaultSchedule.Holders.AS_DRAWN);
            group = new ConsumerGroup(members, target.store(), provider, endpoint, StoreEndpoint.prefixOf(target.store()),
                    service.uri(), line -> record(line));
            try {
                if (settings.faults()) {
                    group.startChildren(CHILDREN); // without faults, a member of the lab's alone: nothing to kill
                }
                group.join();
                progress.accept(phase(began, "the group's members poll; the stream and the faults begin"));
                ConsumerNemesisInjector nemesis = new ConsumerNemesisInjector(settings.seed(), withMembersHit(schedule),
                        target, kafka, group, faults);
                Thread producer = produce(kafka, topic, workload);
                nemesis.start();
                long end = System.nanoTime() + settings.duration().toNanos();
                while (producer.isAlive() || System.nanoTime() - end < 0) {
                    producer.join(5000);
                    progress.accept(String.format(java.util.Locale.ROOT, "%s: %.0f s, %d records sent, %d charges, %d faults",
                            backend.name(), (System.nanoTime() - began) / 1e9, count('P'), provider.chargeCount(),
                            faults.size()));
                }
                nemesis.stop();
                progress.accept(phase(began, "the stream and the faults are over; settling"));
                boolean settled = settle(kafka, groupId, topic, backend.name(), provider);
                progress.accept(phase(began, settled ? "settled: every partition committed to its end" : "NOT settled"));
                group.close();
                progress.accept(phase(began, "every member stopped"));
                Map<Integer, Long> committed = committed(kafka, groupId, topic);
                Map<Integer, Long> ends = ends(kafka, topic);
                ConsumerHistory history = new ConsumerHistory(settings, backend.name(), backend.server().toString(), kafka.toString(),
                        List.copyOf(events), List.copyOf(faults), provider.ledger(), committed, ends,
                        group.started(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began), settled);
                List<String> explained = new ArrayList<>();
                List<Violation> violations = ConsumerChecker.check(history, explained);
                return new ConsumerNemesisResult(history, workload, schedule, violations, explained);
            } finally {
                group.close();
            }
        }
    }

    /**
     * The schedule, its first fault made a killed member and its second a stopped one where it drew none
     * (the added faults keep their times and lengths): a short run drawn by chance often hit no child.
     */
    private static List<FaultSchedule.Planned> withMembersHit(FaultSchedule schedule) {
        List<FaultSchedule.Planned> planned = new ArrayList<>(schedule.faults());
        FaultKind[] wanted = {FaultKind.KILL_CONSUMER, FaultKind.PAUSE_CONSUMER};
        for (int i = 0; i < wanted.length && i < planned.size(); i++) {
            FaultKind kind = wanted[i];
            if (planned.stream().noneMatch(each -> each.kind() == kind)) {
                FaultSchedule.Planned drawn = planned.get(i);
                planned.set(i, new FaultSchedule.Planned(kind, drawn.atMillis(), drawn.lengthMillis(), true));
            }
        }
        return planned;
    }

    /** The schedule's kinds: the store's (but those that break its promise on purpose), and the group's, weighted twice. */
    private static List<FaultKind> kinds(NemesisTarget target, TestKafka kafka) {
        List<FaultKind> kinds = new ArrayList<>(target.kinds().stream().filter(kind -> !kind.breaksStorePromise()).toList());
        for (int weight = 0; weight < 2; weight++) {
            kinds.add(FaultKind.KILL_CONSUMER);
            kinds.add(FaultKind.PAUSE_CONSUMER);
            kinds.add(FaultKind.REBALANCE);
            if (kafka.isPrivate()) {
                kinds.add(FaultKind.RESTART_BROKER); // a broker given by URL is never restarted
            }
        }
        return kinds;
    }

    private static String phase(long began, String what) {
        return String.format(java.util.Locale.ROOT, "%.1f s: %s", (System.nanoTime() - began) / 1e9, what);
    }

    private void record(String line) {
        ConsumerEvent event = ConsumerEvent.parse(line);
        if (event != null) {
            events.add(event);
        }
    }

    private long count(char kind) {
        synchronized (events) {
            return events.stream().filter(event -> event.kind() == kind).count();
        }
    }

    /** Sends the workload's records on time, each with its key in the adapter's header; each landing is an event. */
    private Thread produce(TestKafka kafka, String topic, ConsumerWorkload workload) {
        Thread thread = new Thread(() -> {
            long start = System.nanoTime();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.CLIENT_ID_CONFIG, topic + "-producer"), new StringSerializer(), new StringSerializer())) {
                for (ConsumerWorkload.Send send : workload.sends()) {
                    long wait = send.atMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    ProducerRecord<String, String> record = new ProducerRecord<>(topic, send.partition(), send.key(),
                            ConsumerMember.value(send.key(), send.amount(), send.actionMillis()));
                    record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER,
                            send.key().getBytes(StandardCharsets.UTF_8));
                    producer.send(record, (metadata, failure) -> {
                        if (failure == null) {
                            events.add(new ConsumerEvent('P', ConsumerEvent.now(), "producer", send.key(),
                                    metadata.partition(), metadata.offset(), send.again() ? "again" : "first"));
                        } else {
                            events.add(new ConsumerEvent('E', ConsumerEvent.now(), "producer", send.key(),
                                    send.partition(), -1, "not sent: " + failure));
                        }
                    });
                }
                producer.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "consumer-nemesis-producer");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Waits until the group has committed the end of every partition, at most {@link #SETTLE_BOUND}. */
    private boolean settle(TestKafka kafka, String groupId, String topic, String store, FakePaymentProvider provider)
            throws InterruptedException {
        long giveUpAt = System.nanoTime() + SETTLE_BOUND.toNanos();
        long told = System.nanoTime();
        while (System.nanoTime() - giveUpAt < 0) {
            try {
                Map<Integer, Long> ends = ends(kafka, topic);
                Map<Integer, Long> committed = committed(kafka, groupId, topic);
                if (ends.entrySet().stream().allMatch(end -> committed.getOrDefault(end.getKey(), 0L) >= end.getValue())) {
                    return true;
                }
                if (System.nanoTime() - told > TimeUnit.SECONDS.toNanos(5)) {
                    told = System.nanoTime();
                    progress.accept(store + ": settling, committed " + committed + " of " + ends + ", "
                            + provider.chargeCount() + " charges");
                }
            } catch (IllegalStateException brokerBusy) {
                // asked again below
            }
            Thread.sleep(250);
        }
        return false;
    }

    private static Map<Integer, Long> committed(TestKafka kafka, String groupId, String topic) {
        try (Admin admin = admin(kafka)) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<Integer, Long> committed = new HashMap<>();
            offsets.forEach((partition, offset) -> {
                if (partition.topic().equals(topic) && offset != null) {
                    committed.put(partition.partition(), offset.offset());
                }
            });
            return committed;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the group's committed offsets: " + e.getMessage(), e);
        }
    }

    private static Map<Integer, Long> ends(TestKafka kafka, String topic) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try (Admin admin = admin(kafka)) {
            Map<Integer, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((partition, info) -> ends.put(partition.partition(), info.offset()));
            return ends;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the topic's end offsets: " + e.getMessage(), e);
        }
    }

    private static Admin admin(TestKafka kafka) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000,
                AdminClientConfig.CLIENT_ID_CONFIG, "idemlab-consumer-nemesis-admin"));
    }
}
