package dev.idemlab.lab.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.Outcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one worker process of the HTTP load sent and got, written to a file its parent named and read
 * back by the parent: its counts, the distinct (key, charge) pairs its callers were given, and its
 * latencies as HdrHistogram's compressed encoding in base64. The parent merges every worker's into
 * one {@link ChargeHistory} and lays that against the provider's ledger, which only the parent reads.
 * Immutable in intent; thread-safe once built.
 *
 * @param worker the worker's number, from 1
 * @param pid the worker's process id
 * @param elapsedNanos from the parent's go to the worker's last answer being in
 * @param retriesSent duplicates this worker's clients handed to other workers
 * @param invocations requests this worker sent, duplicates from other workers included
 * @param answers answers by outcome
 * @param errors definite errors by kind
 * @param responses (key, charge number, responses) triples, one per distinct pair
 * @param latencies the latency histogram (microseconds), compressed, base64
 */
public record WorkerReport(int worker, long pid, long elapsedNanos, long retriesSent, long invocations,
                           Map<Outcome, Long> answers, Map<ErrorKind, Long> errors, long[] responses,
                           String latencies) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The report of a worker whose session has stopped. */
    static WorkerReport of(int worker, long elapsedNanos, LoadDriver session, ChargeHistory history,
                           LatencyRecorder recorder) {
        Map<Outcome, Long> answers = new EnumMap<>(Outcome.class);
        for (Outcome outcome : Outcome.values()) {
            answers.put(outcome, history.answers(outcome));
        }
        Map<ErrorKind, Long> errors = new EnumMap<>(ErrorKind.class);
        for (ErrorKind kind : ErrorKind.values()) {
            errors.put(kind, history.errors(kind));
        }
        LongStream.Builder pairs = LongStream.builder();
        history.forEachResponse((key, chargeNumber, count) -> pairs.add(key).add(chargeNumber).add(count));
        return new WorkerReport(worker, ProcessHandle.current().pid(), elapsedNanos, session.retriesSent(),
                history.invocations(), answers, errors, pairs.build().toArray(),
                encode(recorder.merged()));
    }

    /** Writes this report to {@code file} as JSON. */
    void write(Path file) throws IOException {
        JSON.writeValue(file.toFile(), this);
    }

    /** Reads a report a worker wrote. */
    static WorkerReport read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), WorkerReport.class);
    }

    /** Adds this worker's counts and responses to {@code history}. */
    void addTo(ChargeHistory history) {
        history.addCounts(invocations, answers, errors);
        for (int i = 0; i + 2 < responses.length; i += 3) {
            history.addResponses((int) responses[i], (int) responses[i + 1], responses[i + 2]);
        }
    }

    /** The worker's latencies, in microseconds. */
    Histogram histogram() {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(latencies)), 0);
        } catch (DataFormatException e) {
            throw new IllegalStateException("worker " + worker + " sent a latency histogram that cannot be read", e);
        }
    }

    /** This worker's row in the report. */
    WorkerRun row() {
        return new WorkerRun(worker, pid, invocations, retriesSent, elapsedNanos, LatencySummary.of(histogram()));
    }

    private static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }
}
