package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.http.SpringSample;
import dev.idemlab.lab.infra.Signals;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Spring Boot sample's JVM in a run through the sample, and the holder faults played on it: every
 * call of the run is served by this one JVM, so it holds every key in flight. {@code pause-holder} stops
 * it (SIGSTOP) past the lease, then continues it; {@code kill-holder} kills it (SIGKILL) and starts it
 * again, on a new ephemeral port, with the same settings: a service's instance that died and came back.
 * While it is down, {@link #uri()} is empty. Thread-safe: the nemesis plays the faults, the callers
 * read the address.
 */
final class SampleJvm implements HolderFaults, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SampleJvm.class);
    /** The longest the nemesis waits to see the sample stopped after SIGSTOP before it counts the pause as begun. */
    private static final Duration STOP_PATIENCE = Duration.ofSeconds(1);


    private final Path jar;
    private final List<String> arguments;
    private final Map<String, String> environment;
    private final Duration lease;
    private volatile SpringSample current;
    private volatile boolean closed;

    private SampleJvm(Path jar, List<String> arguments, Map<String, String> environment, Duration lease,
                      SpringSample first) {
        this.jar = jar;
        this.arguments = List.copyOf(arguments);
        this.environment = Map.copyOf(environment);
        this.lease = lease;
        this.current = first;
    }

    /**
     * Starts the sample and waits until it serves.
     *
     * @throws IOException when its JVM cannot be started
     * @throws IllegalStateException when it exits or stays silent before it serves, with its log's tail
     */
    static SampleJvm start(Path jar, List<String> arguments, Map<String, String> environment, Duration lease)
            throws IOException, InterruptedException {
        return new SampleJvm(jar, arguments, environment, lease, SpringSample.start(jar, arguments, environment));
    }

    /** Where the sample serves now: {@code http://127.0.0.1:PORT}, or {@code null} while it is down. */
    URI uri() {
        SpringSample sample = current;
        return sample == null ? null : sample.uri();
    }


    /** The pid of the sample's JVM now, or -1 while it is down. */
    long pid() {
        SpringSample sample = current;
        return sample == null ? -1 : sample.pid();
    }

    @Override
    public int inject(FaultKind kind, Duration length, Runnable tookEffect) throws InterruptedException {
        SpringSample sample = current;
        if (sample == null) {
            throw new IllegalStateException("the sample is down (a restart failed): no " + kind.id());
        }
        if (kind == FaultKind.PAUSE_HOLDER) {
            pause(sample, length, tookEffect);
        } else if (kind == FaultKind.KILL_HOLDER) {
            killAndRestart(sample, tookEffect);
        } else {
            throw new IllegalArgumentException(kind.id() + " is not a fault of the sample's JVM");
        }
        return EVERY_KEY;
    }

    /** SIGSTOP for the lease and {@code length} more, then SIGCONT, also when the nemesis is stopped meanwhile. */
    private void pause(SpringSample sample, Duration length, Runnable tookEffect) {
        Signals.send("STOP", sample.pid());
        boolean stopped;
        try {
            if (!Signals.awaitStopped(sample.pid(), STOP_PATIENCE)) {
                LOG.warn("the sample's JVM (pid {}) was not seen stopped within {} ms of SIGSTOP; its pause is "
                        + "recorded as begun now", sample.pid(), STOP_PATIENCE.toMillis());
            }
            tookEffect.run();
            NemesisTarget.hold(lease.plus(length));
        } finally {
            stopped = Thread.interrupted();
            Signals.send("CONT", sample.pid());
        }
        if (stopped) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("stopped during the pause: the sample was continued early");
        }
    }

    /**
     * SIGKILL, reaped, then the same sample started again; the fault ends once it serves. A restart that
     * fails leaves the sample down for the rest of the run, and says why.
     */
    private void killAndRestart(SpringSample sample, Runnable tookEffect) throws InterruptedException {
        current = null;
        Signals.send("KILL", sample.pid());
        sample.close();
        tookEffect.run();
        if (closed) {
            return;
        }
        try {
            SpringSample restarted = SpringSample.start(jar, arguments, environment);
            synchronized (this) {
                if (closed) {
                    restarted.close();
                } else {
                    current = restarted;
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("the sample was killed and did not come back: " + e.getMessage(), e);
        }
    }

    /** The last lines the sample logged, for a message; empty while it is down. */
    String logTail() {
        SpringSample sample = current;
        return sample == null ? "" : sample.logTail();
    }

    /** Stops the sample (continued first, should a pause still hold it) and waits until it is gone. Idempotent. */
    @Override
    public void close() {
        SpringSample sample;
        synchronized (this) {
            closed = true;
            sample = current;
            current = null;
        }
        if (sample != null) {
            Signals.sendQuietly("CONT", sample.pid());
            sample.close();
        }
    }
}
