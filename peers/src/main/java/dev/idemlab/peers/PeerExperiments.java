package dev.idemlab.peers;

import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * Runs the post's experiments on one peer. Each experiment opens a fresh peer over a fresh provider
 * and uses keys no other run uses, so that runs never see each other's records; each returns every
 * call, the ledger, and the verdict {@link Judge} gives them.
 *
 * <p>Thread-safe; experiments may run one after another on one instance.
 */
public final class PeerExperiments {

    private static final String OPEN_AMOUNT_ORDER = "order-";
    private static final long AMOUNT = 10;
    private static final long OTHER_AMOUNT = 5;

    private final PeerFactory factory;
    private final String storeUri;
    private final ExperimentOptions options;

    /**
     * @param factory opens the peer under test
     * @param storeUri where the peer keeps its records, as its factory takes it ({@link PeerFactory#open});
     *                 ignored by in-memory peers
     * @param options the timing
     */
    public PeerExperiments(PeerFactory factory, String storeUri, ExperimentOptions options) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.storeUri = storeUri;
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * In-flight: caller A at 0 ms; callers B.. with the same key and payload at {@code retryAt}, once A
     * is inside the provider.
     */
    public ExperimentResult inFlight() {
        CountDownLatch firstInside = new CountDownLatch(1);
        FakePaymentProvider provider = FakePaymentProvider.builder()
                .latency(options.latency())
                .observer(new ProviderObserver() {
                    @Override
                    public void callStarted(int callNumber, String orderId, long amount) {
                        if (callNumber == 1) {
                            firstInside.countDown();
                        }
                    }
                })
                .build();
        String run = runId(Experiment.IN_FLIGHT);
        ChargeRequest request = new ChargeRequest(run, OPEN_AMOUNT_ORDER + run, AMOUNT);
        return withPeer(Experiment.IN_FLIGHT, provider, (peer, timeline) -> {
            List<Timeline.Pending> calls = new ArrayList<>();
            calls.add(timeline.start("A", request));
            timeline.sleepUntil(options.retryAt());
            timeline.awaitInside(firstInside, calls.get(0).future());
            for (int i = 1; i < options.callers(); i++) {
                calls.add(timeline.start(String.valueOf((char) ('A' + i)), request));
            }
            List<Call> done = timeline.collect(calls);
            return new Outcome(done, Judge.inFlight(done, provider.ledger()));
        });
    }

    /** Key reuse: key K with amount 10, again K with 10, then K with amount 5; one after the other. */
    public ExperimentResult keyReuse() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(options.latency()).build();
        String run = runId(Experiment.KEY_REUSE);
        String order = OPEN_AMOUNT_ORDER + run;
        return withPeer(Experiment.KEY_REUSE, provider, (peer, timeline) -> {
            List<Call> done = List.of(
                    timeline.run("A", new ChargeRequest(run, order, AMOUNT)),
                    timeline.run("B", new ChargeRequest(run, order, AMOUNT)),
                    timeline.run("C", new ChargeRequest(run, order, OTHER_AMOUNT)));
            return new Outcome(done, Judge.keyReuse(done, provider.ledger()));
        });
    }

    /** Provider timeout: the provider fails the first call before charging; the client retries. */
    public ExperimentResult providerTimeout() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(options.latency()).build();
        provider.failNextCalls(1);
        String run = runId(Experiment.PROVIDER_TIMEOUT);
        ChargeRequest request = new ChargeRequest(run, OPEN_AMOUNT_ORDER + run, AMOUNT);
        return withPeer(Experiment.PROVIDER_TIMEOUT, provider, (peer, timeline) -> {
            List<Call> done = List.of(timeline.run("A", request), timeline.run("A-retry", request));
            return new Outcome(done, Judge.providerTimeout(done, provider.ledger()));
        });
    }

    /**
     * Store down: the peer starts against {@code outage}'s server, the server is stopped, then one
     * caller charges. An in-memory peer has no store to lose: {@link Verdict#NOT_SUPPORTED}.
     *
     * @param outage a server this experiment may stop; it is stopped whatever happens
     */
    public ExperimentResult storeDown(ServerOutage outage) {
        if (factory.storeKind() == StoreKind.MEMORY) {
            outage.stop();
            return ExperimentResult.notSupported(Experiment.STORE_DOWN, factory,
                    "its records live in the JVM's memory: there is no store to lose");
        }
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(options.latency()).build();
        String run = runId(Experiment.STORE_DOWN);
        ChargeRequest request = new ChargeRequest(run, OPEN_AMOUNT_ORDER + run, AMOUNT);
        try {
            return withPeer(Experiment.STORE_DOWN, provider, outage.uri(), (peer, timeline) -> {
                outage.stop();
                List<Call> done = List.of(timeline.run("A", request));
                return new Outcome(done, Judge.storeDown(done, provider.ledger()));
            });
        } finally {
            outage.stop();
        }
    }

    /**
     * A run id no other run shares: the key, and part of the order id. Only digits and hex, so that
     * an exception message that quotes the request never reads as a signal ({@link ErrorSignal}).
     */
    private static String runId(Experiment experiment) {
        return "peers-" + experiment.ordinal() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private record Outcome(List<Call> calls, Judge.Judgement judgement) { }

    private ExperimentResult withPeer(Experiment experiment, FakePaymentProvider provider,
            BiFunction<PeerLibrary, Timeline, Outcome> body) {
        return withPeer(experiment, provider, storeUri, body);
    }

    private ExperimentResult withPeer(Experiment experiment, FakePaymentProvider provider, String uri,
            BiFunction<PeerLibrary, Timeline, Outcome> body) {
        ExecutorService callers = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "peers-caller");
            thread.setDaemon(true);
            return thread;
        });
        try (PeerLibrary peer = factory.open(provider, uri)) {
            Outcome outcome = body.apply(peer, new Timeline(peer, callers, options));
            return new ExperimentResult(experiment, peer.name(), peer.version(), peer.wiring(), peer.storeKind(),
                    outcome.calls(), provider.ledger(), outcome.judgement().verdict(), outcome.judgement().reason());
        } finally {
            callers.shutdownNow();
        }
    }

    /** Runs calls against one peer, timed from the timeline's start. */
    static final class Timeline {

        private final PeerLibrary peer;
        private final ExecutorService callers;
        private final ExperimentOptions options;
        private final long start = System.nanoTime();

        Timeline(PeerLibrary peer, ExecutorService callers, ExperimentOptions options) {
            this.peer = peer;
            this.callers = callers;
            this.options = options;
        }

        /** A call on its way. */
        record Pending(String caller, ChargeRequest request, Future<Call> future) { }

        Pending start(String caller, ChargeRequest request) {
            return new Pending(caller, request, callers.submit(() -> call(caller, request)));
        }

        Call run(String caller, ChargeRequest request) {
            return collect(List.of(start(caller, request))).get(0);
        }

        void sleepUntil(java.time.Duration offset) {
            long wait = offset.toNanos() - (System.nanoTime() - start);
            if (wait > 0) {
                sleep(wait);
            }
        }

        /** Waits until the first call is inside the provider, or has ended, or the deadline passed. */
        void awaitInside(CountDownLatch inside, Future<Call> first) {
            long deadline = System.nanoTime() + options.callDeadline().toNanos();
            try {
                while (!inside.await(5, TimeUnit.MILLISECONDS) && !first.isDone() && System.nanoTime() < deadline) {
                    // the first caller is still on its way to the provider
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while staging the in-flight race", e);
            }
        }

        List<Call> collect(List<Pending> pending) {
            long deadline = System.nanoTime() + options.callDeadline().toNanos();
            List<Call> calls = new ArrayList<>();
            for (Pending call : pending) {
                calls.add(await(call, deadline));
            }
            return calls;
        }

        private Call await(Pending pending, long deadline) {
            try {
                return pending.future().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                pending.future().cancel(true);
                long now = elapsedMs();
                return new Call(pending.caller(), pending.request(), -1, now, Response.error(
                        new IllegalStateException("no answer within " + options.callDeadline().toSeconds() + " s")));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while awaiting a caller", e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("a caller failed outside the library", e.getCause());
            }
        }

        private Call call(String caller, ChargeRequest request) {
            long begin = elapsedMs();
            Response response;
            try {
                response = Response.of(peer.charge(request.idempotencyKey(), request.orderId(), request.amount()));
            } catch (Throwable t) {
                if (t instanceof Error error && !(t instanceof StackOverflowError)) {
                    throw error;
                }
                response = Response.error(t);
            }
            return new Call(caller, request, begin, elapsedMs(), response);
        }

        private long elapsedMs() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }

        private static void sleep(long nanos) {
            try {
                TimeUnit.NANOSECONDS.sleep(nanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while staging the in-flight race", e);
            }
        }
    }
}
