package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.kafka.IdempotentConsumer;
import dev.idemlab.idempotency.kafka.PollSummary;
import dev.idemlab.idempotency.kafka.RecordResult;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.http.HttpPaymentProvider;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Consumer A of the crash table ({@link RedeliveryCrashScenario}) in a process of its own, so that it can
 * be killed with SIGKILL between two steps of handling the charge record. It joins the group, polls the
 * record through the adapter's poll loop ({@link IdempotentConsumer}) with the mode's handler, on the store
 * its parent names in its environment and the provider's HTTP service, and reports on standard output,
 * one line each: its side of the timeline ({@code event\t...}, as {@link HolderMain} writes it), {@code at
 * BOUNDARY} when it reaches the boundary it was told to stop at (it then reads a line from standard input,
 * and the parent kills it there), and {@code got ANSWER} if it ever finishes the record. It never goes on
 * past its boundary unless told: with its standard input closed (the parent gone) it exits without
 * handling further.
 *
 * <p>Arguments: {@code MODE BOUNDARY BOOTSTRAP_SERVERS TOPIC GROUP PREFIX LEASE_MS PROVIDER_URL
 * SESSION_TIMEOUT_MS ORDER_REF ON_STORE_FAILURE}, MODE a {@link RedeliveryCrashMode} name, BOUNDARY one of
 * {@link RedeliveryCrashMode#BOUNDARIES} and ON_STORE_FAILURE a {@link StoreFailureMode} name (the run's, as
 * consumer B has it). Not an entry point for people: the lab starts it.
 */
public final class RedeliveryCrashConsumerMain {

    static final String AT = "at ";

    private RedeliveryCrashConsumerMain() { }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        RedeliveryCrashMode mode = RedeliveryCrashMode.valueOf(args[0]);
        String stopAt = args[1];
        String servers = args[2];
        String topic = args[3];
        String group = args[4];
        String prefix = args[5];
        Duration lease = Duration.ofMillis(Long.parseLong(args[6]));
        URI providerUri = URI.create(args[7]);
        int sessionTimeoutMs = Integer.parseInt(args[8]);
        String orderRef = args[9];
        StoreFailureMode onStoreFailure = StoreFailureMode.valueOf(args[10]);

        Timeline timeline = new Timeline(event -> out.println(HolderMain.EVENT + event.from() + "\t" + event.to() + "\t"
                + event.reply() + "\t" + event.message().replace('\t', ' ').replace('\n', ' ')));
        RedeliveryCrashMode.Boundaries boundaries = boundary -> {
            if (boundary.equals(stopAt)) {
                out.println(AT + boundary);
                awaitLine(in);
            }
        };
        try (IdempotencyStore raw = HolderMain.openPatiently(StoreEndpoint.fromEnvironment(), prefix)) {
            // A cold JVM: its first store call must not be the reserve, whose patience it could miss.
            raw.lookup(ChargeClient.OPERATION + ":warm-up");
            IdempotencyStore store = new TimelineStore(raw, timeline);
            IdempotencyCoordinator coordinator = CoordinatorFactory.LIBRARY.create(store, mode.policy,
                    IdempotencyConfig.custom().lease(lease).waitTimeout(lease.multipliedBy(5))
                            .storeFailureMode(onStoreFailure).build());
            InboxOrders orders = mode.inbox
                    ? new InboxOrders(orderRef, LocalEffects.of((PostgresIdempotencyStore) raw)) : null;
            Map<String, Object> config = RedeliveryConsumer.config(servers, group, "A", Map.of(
                    ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs,
                    ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.max(20, sessionTimeoutMs / 10)));
            IdempotentConsumer<String, String> loop = IdempotentConsumer.of(
                    new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer()),
                    mode.handler(coordinator, HttpPaymentProvider.connect(providerUri), orders, boundaries),
                    Duration.ofMillis(20), Ticker.system());
            RecordResult<?>[] answer = new RecordResult<?>[1];
            // after the handling returned (the processed row or the completion written), before the commit
            loop.observe((record, result) -> {
                answer[0] = result;
                if (result.outcome().acknowledged()) {
                    boundaries.reached(RedeliveryCrashMode.COMPLETED);
                }
            });
            loop.subscribe(List.of(topic));
            try (loop) {
                while (answer[0] == null) {
                    PollSummary poll = loop.poll(Duration.ofMillis(20));
                    if (!poll.failures().isEmpty()) {
                        out.println(HolderMain.GOT + poll.failures().get(0).failure().getClass().getSimpleName());
                        System.exit(1);
                    }
                }
            }
            Object value = answer[0].value();
            out.println(HolderMain.GOT + (value instanceof Charge charge ? charge.id() : String.valueOf(value)));
        }
        System.exit(0);
    }

    /** Waits for the parent's line; with the parent gone (standard input closed), exits rather than go on. */
    private static void awaitLine(BufferedReader in) {
        try {
            if (in.readLine() == null) {
                System.exit(3);
            }
        } catch (IOException e) {
            System.exit(3);
        }
    }
}
