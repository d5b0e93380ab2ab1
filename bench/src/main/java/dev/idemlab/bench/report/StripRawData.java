package dev.idemlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Drops the raw sample histograms from JMH JSON files in place. SampleTime writes every bucket of
 * every iteration (megabytes per run); the summary, the percentiles and the scores stay.
 *
 * <pre>{@code java -cp bench/target/benchmarks.jar dev.idemlab.bench.report.StripRawData results/bench/jmh-*.json}</pre>
 */
public final class StripRawData {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private StripRawData() { }

    public static void main(String[] args) throws IOException {
        for (String file : args) {
            Path path = Path.of(file);
            JsonNode root = MAPPER.readTree(path.toFile());
            for (JsonNode benchmark : root) {
                strip(benchmark.get("primaryMetric"));
                JsonNode secondary = benchmark.get("secondaryMetrics");
                if (secondary != null) {
                    secondary.forEach(StripRawData::strip);
                }
            }
            Path temp = Files.createTempFile(path.toAbsolutePath().getParent(), ".strip-", ".json");
            MAPPER.writeValue(temp.toFile(), root);
            Files.move(temp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void strip(JsonNode metric) {
        if (metric instanceof ObjectNode object) {
            object.remove("rawDataHistogram");
        }
    }
}
