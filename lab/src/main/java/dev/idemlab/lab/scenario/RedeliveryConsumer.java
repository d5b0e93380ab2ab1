package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.kafka.IdempotentConsumer;
import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.kafka.PollSummary;
import dev.idemlab.idempotency.kafka.RecordOutcome;
import dev.idemlab.idempotency.kafka.RecordResult;
import dev.idemlab.provider.Charge;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * One member of the redelivery scenario's consumer group, polling on a thread of its own through the
 * adapter's loop ({@link IdempotentConsumer}): it records when the charge record reached it, how its
 * deliveries ended, and whether the group refused its commit. Thread-safe to read once {@link #stop()}
 * returned.
 */
final class RedeliveryConsumer {

    private final String name;
    private final MemberTimes times;
    private final IdempotentConsumer<String, String> loop;
    private final CountDownLatch acknowledged = new CountDownLatch(1);
    private final Thread thread;
    private final boolean leaveOnceAnswered;
    private volatile boolean running = true;
    private volatile RecordResult<?> answer;
    private volatile int skipped;
    private volatile RuntimeException commitFailure;
    private volatile Exception failure;

    /**
     * Subscribes a consumer of {@code group} to {@code topic} and starts polling.
     *
     * @param extra consumer settings beyond the scenario's own (A's short poll interval)
     * @param startNanos when the scenario's clock started (A began the charge), set once it has
     * @param ledger how many charges the provider's ledger holds now, read when this consumer answers
     * @param leaveOnceAnswered whether the consumer leaves the group after the poll in which it answered
     *     the record (A: its rejoining would start another rebalance, which could take the partition
     *     back from B while B's skipped record waits for its retry)
     */
    RedeliveryConsumer(String name, String bootstrapServers, String group, String topic, Map<String, Object> extra,
                       IdempotentRecordHandler<String, String, Charge> handler, AtomicLong startNanos,
                       IntSupplier ledger, boolean leaveOnceAnswered) {
        this.name = name;
        this.times = new MemberTimes(startNanos, ledger);
        this.leaveOnceAnswered = leaveOnceAnswered;
        Map<String, Object> config = config(bootstrapServers, group, name, extra);
        this.loop = IdempotentConsumer.of(new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer()),
                handler, Duration.ofMillis(20), dev.idemlab.idempotency.Ticker.system());
        loop.observe((record, result) -> observe(result));
        loop.subscribe(List.of(topic));
        this.thread = new Thread(this::pollUntilStopped, "redelivery-consumer-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The settings of a member of the scenarios' groups, also a consumer's in a child JVM: manual commits
     * only, from the earliest record, a quick empty fetch, a frequent heartbeat; then {@code extra}.
     */
    static Map<String, Object> config(String bootstrapServers, String group, String name, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + name,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                // an empty fetch comes back at once, so that a stopped loop closes without waiting out 500 ms
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20,
                // the heartbeat thread is what notices A's poll interval running out and leaves the group
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 20));
        config.putAll(extra);
        if ("consumer".equals(String.valueOf(config.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG)))) {
            // the consumer protocol (KIP-848) takes its heartbeat interval from the broker and refuses one set here
            config.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        }
        IdempotentConsumer.requireManualCommits(config);
        return config;
    }

    /** Called by the handler's value reader: the record reached this consumer (first time counts). */
    void received() {
        times.received();
    }

    private void observe(RecordResult<?> result) {
        received(); // by now at the latest, should the handler not have said so
        if (result.outcome() == RecordOutcome.IN_FLIGHT) {
            skipped++;
            return;
        }
        times.answered();
        answer = result;
        acknowledged.countDown();
    }

    private void pollUntilStopped() {
        try {
            while (running && !(leaveOnceAnswered && answer != null)) {
                PollSummary poll = loop.poll(Duration.ofMillis(20));
                if (poll.commitFailure() != null) {
                    commitFailure = poll.commitFailure();
                }
                if (!poll.failures().isEmpty() && failure == null) {
                    failure = poll.failures().get(0).failure();
                    times.failed();
                    acknowledged.countDown();
                }
            }
        } catch (RuntimeException e) {
            failure = e;
            acknowledged.countDown();
        } finally {
            loop.close();
        }
    }

    /** Waits until this consumer acknowledged the record (or failed on it), at most {@code timeout}. */
    boolean awaitAnswer(Duration timeout) throws InterruptedException {
        return acknowledged.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops polling and closes the consumer (it leaves the group). */
    void stop() throws InterruptedException {
        running = false;
        thread.join(TimeUnit.SECONDS.toMillis(30));
    }

    /** This consumer's row: when the record reached it, when it was answered (ms since A began the charge), and how. */
    CallerResult result(String outcome) {
        return times.row(name, response(), outcome);
    }

    private String response() {
        if (failure != null) {
            return failure.getClass().getSimpleName();
        }
        if (answer == null) {
            return !times.wasReceived() ? "never delivered" : "not acknowledged";
        }
        return answer.value() instanceof Charge charge ? charge.id() : String.valueOf(answer.value());
    }

    RecordResult<?> answer() {
        return answer;
    }

    int skipped() {
        return skipped;
    }

    RuntimeException commitFailure() {
        return commitFailure;
    }

    String name() {
        return name;
    }
}
