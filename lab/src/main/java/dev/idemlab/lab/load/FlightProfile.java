package dev.idemlab.lab.load;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a server JVM's time and allocations went during one measured run, read from its flight
 * recording: each CPU sample ({@code jdk.ExecutionSample}) and each allocation sample
 * ({@code jdk.ObjectAllocationSample}, by its weight in bytes) is put in the {@link Part} of the first
 * frame, from the innermost out, that belongs to one, so that Jackson called by the fingerprint counts
 * as the fingerprint, and the handler called through the filter as the handler. Only events within the
 * measured run count, not the start, the warm-up nor the stop. The sampler sees Java frames of threads
 * running Java code: the JIT's and the collector's own threads, and time in native code, are not in
 * the samples (they are in the JVM's CPU time the comparison reads). Immutable.
 *
 * @param label which run: store, kind of request, handler
 * @param samples CPU samples per part
 * @param allocated bytes allocated per part, as sampled
 */
public record FlightProfile(String label, Map<Part, Long> samples, Map<Part, Long> allocated) {

    /** Where a request's time can go, each named by the frames that belong to it. */
    public enum Part {
        HEADER("header parsing, key checks and client scope", "servlet.internal.KeyHeader",
                "servlet.internal.ClientScope", "idempotency.IdempotentCall."),
        FINGERPRINT("fingerprint: canonical JSON and its hash", "servlet.internal.RequestFingerprint",
                "idempotency.Fingerprint", "idempotency.internal.CanonicalJson"),
        BODY("request body read and cached", "servlet.internal.CachedBodyRequest"),
        CAPTURE("response capture and its copy", "servlet.internal.ResponseCapture",
                "servlet.internal.StoredResponse."),
        ENCODING("result encoding and decoding", "servlet.internal.StoredResponseCodec",
                "idempotency.internal.ResultEncoder", "idempotency.ResultCodec"),
        REFUSAL("refusals (409 problem details)", "servlet.RefusalWriter", "servlet.internal.Problem"),
        STORE("store client", "idempotency.store.", "lab.load.raw."),
        LOGGING("logging", "org.slf4j.", "ch.qos.logback."),
        METRICS("metrics and counters", "io.micrometer.", "idempotency.internal.Counters",
                "idempotency.internal.Metrics"),
        FILTER("the filter's own code (the rest)", "dev.idemlab.idempotency.servlet."),
        COORDINATOR("coordinator (reserve, lease, complete)", "dev.idemlab.idempotency."),
        RAW_WRITES("raw writes by hand (the floor's handler)", "lab.http.RawWrites"),
        HANDLER("the handler and the provider", "lab.http.DemoPaymentApi", "dev.idemlab.provider.",
                "lab.load.HeldProvider", "lab.http.RequestKeys", "lab.http.BearerClients"),
        JETTY("Jetty: HTTP parsing, I/O, threads", "org.eclipse.jetty."),
        OTHER("other (JDK, the JVM's own)");

        private final String label;
        private final List<String> frames;

        Part(String label, String... frames) {
            this.label = label;
            this.frames = List.of(frames);
        }

        /** What the page calls it. */
        public String label() {
            return label;
        }

        boolean owns(String frame) {
            for (String prefix : frames) {
                if (frame.contains(prefix)) {
                    return true;
                }
            }
            return false;
        }
    }

    public FlightProfile {
        Objects.requireNonNull(label, "label");
        samples = Map.copyOf(samples);
        allocated = Map.copyOf(allocated);
    }

    /**
     * Reads the events of {@code recording} between {@code from} and {@code to}.
     *
     * @throws IOException if the recording cannot be read
     */
    public static FlightProfile read(String label, Path recording, Instant from, Instant to) throws IOException {
        Map<Part, Long> samples = new EnumMap<>(Part.class);
        Map<Part, Long> allocated = new EnumMap<>(Part.class);
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (event.getStartTime().isBefore(from) || event.getStartTime().isAfter(to)) {
                    continue;
                }
                String type = event.getEventType().getName();
                if (type.equals("jdk.ExecutionSample")) {
                    samples.merge(partOf(event.getStackTrace()), 1L, Long::sum);
                } else if (type.equals("jdk.ObjectAllocationSample")) {
                    allocated.merge(partOf(event.getStackTrace()), event.getLong("weight"), Long::sum);
                }
            }
        }
        return new FlightProfile(label, samples, allocated);
    }

    /** The part of the innermost frame that belongs to one; {@link Part#OTHER} when none does. */
    static Part partOf(RecordedStackTrace stack) {
        if (stack == null) {
            return Part.OTHER;
        }
        for (RecordedFrame frame : stack.getFrames()) {
            if (frame.getMethod() == null) {
                continue;
            }
            String name = frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
            for (Part part : Part.values()) {
                if (part != Part.OTHER && part.owns(name)) {
                    return part;
                }
            }
        }
        return Part.OTHER;
    }

    /** All CPU samples of the run. */
    public long totalSamples() {
        return samples.values().stream().mapToLong(Long::longValue).sum();
    }

    /** All sampled allocation of the run, in bytes. */
    public long totalAllocated() {
        return allocated.values().stream().mapToLong(Long::longValue).sum();
    }
}
