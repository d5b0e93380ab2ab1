package dev.idemlab.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.Fingerprint;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What does a fingerprint cost? {@link Fingerprint#ofFields} of a checkout's order (id, amount,
 * currency, customer, three line items): canonical JSON, then SHA-256 in hex. Beside it, the raw
 * baseline: the same map written by a plain Jackson mapper (insertion order, no canonical number
 * form) and hashed the same way, so the ratio is the price of canonicalisation.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar FingerprintBenchmark -t 1 -rf json -rff fingerprint.json
 * java -jar bench/target/benchmarks.jar FingerprintBenchmark -t 4
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FingerprintBenchmark {

    private static final ObjectMapper PLAIN = new ObjectMapper();

    private final Map<String, Object> payload = Requests.payload();

    @Benchmark
    public Fingerprint ofFields() {
        return Fingerprint.ofFields(payload);
    }

    @Benchmark
    public String rawJsonSha256() throws JsonProcessingException, NoSuchAlgorithmException {
        byte[] json = PLAIN.writeValueAsBytes(payload);
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json));
    }
}
