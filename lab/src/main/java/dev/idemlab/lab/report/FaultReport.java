package dev.idemlab.lab.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.lab.load.LoadFaults;
import dev.idemlab.lab.load.LoadRun;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * What a load's faults cost, per store and policy: stalls made, duplicate charges in the ledger,
 * keys whose callers got different charges, storage errors the coordinator counted.
 */
public final class FaultReport {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private FaultReport() { }

    /**
     * The fault block in {@code format}; for JSON, {@code loadJson} and the faults in one object
     * ({@code {"load": ..., "faults": ...}}), for the others the block to print after the load report.
     */
    public static String render(ReportFormat format, LoadFaults faults, List<LoadRun> runs, String loadReport) {
        return switch (format) {
            case JSON -> json(faults, runs, loadReport);
            case MARKDOWN -> loadReport + markdown(faults, runs);
            case TABLE -> loadReport + table(faults, runs);
        };
    }

    /** {@code stalls 5s:1500ms, downstream key on, store patience 0 ms}. */
    public static String describe(LoadFaults faults) {
        String stalls = faults.stalls() ? "stalls " + millis(faults.stallEvery().toMillis()) + ":"
                + millis(faults.stallFor().toMillis()) + " (SIGSTOP/SIGCONT of the store's server)" : "no stalls";
        return stalls + ", downstream key " + (faults.downstreamKey() ? "on (the provider deduplicates)" : "off")
                + ", store patience " + (faults.storePatience() == null ? "default (2000 ms)"
                : faults.storePatience().toMillis() + " ms");
    }

    private static String table(LoadFaults faults, List<LoadRun> runs) {
        StringBuilder out = new StringBuilder("\nfaults: ").append(describe(faults)).append('\n');
        out.append(String.format(Locale.ROOT, "  %-9s %-6s %7s %10s %17s %15s %15s%n", "store", "policy", "stalls",
                "requests", "duplicate charges", "different-answer", "storage errors"));
        for (LoadRun run : runs) {
            out.append(String.format(Locale.ROOT, "  %-9s %-6s %7d %10d %17d %15d %15d%n", run.server().store(),
                    run.policyName(), run.stallsMade(), run.check().requests(), run.check().duplicateCharges(),
                    run.check().splitKeys(), run.check().storageErrors()));
        }
        return out.toString();
    }

    private static String markdown(LoadFaults faults, List<LoadRun> runs) {
        StringBuilder out = new StringBuilder("\n## Faults\n\n").append(capitalize(describe(faults))).append(".\n\n");
        out.append("| store | policy | stalls | requests | duplicate charges | keys with different answers | storage errors |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (LoadRun run : runs) {
            out.append("| ").append(run.server().store()).append(" | ").append(run.policyName()).append(" | ")
                    .append(run.stallsMade()).append(" | ").append(run.check().requests()).append(" | ")
                    .append(run.check().duplicateCharges()).append(" | ").append(run.check().splitKeys()).append(" | ")
                    .append(run.check().storageErrors()).append(" |\n");
        }
        return out.toString();
    }

    private static String json(LoadFaults faults, List<LoadRun> runs, String loadJson) {
        try {
            ObjectNode root = MAPPER.createObjectNode();
            root.set("load", MAPPER.readTree(loadJson));
            ObjectNode node = root.putObject("faults");
            node.put("description", describe(faults));
            node.put("stallEveryMs", faults.stalls() ? faults.stallEvery().toMillis() : 0);
            node.put("stallForMs", faults.stalls() ? faults.stallFor().toMillis() : 0);
            node.put("downstreamKey", faults.downstreamKey());
            if (faults.storePatience() != null) {
                node.put("storePatienceMs", faults.storePatience().toMillis());
            }
            ArrayNode perRun = node.putArray("runs");
            for (LoadRun run : runs) {
                perRun.addObject().put("store", run.server().store()).put("policy", run.policyName())
                        .put("stalls", run.stallsMade()).put("requests", run.check().requests())
                        .put("duplicateCharges", run.check().duplicateCharges())
                        .put("keysWithDifferentAnswers", run.check().splitKeys())
                        .put("storageErrors", run.check().storageErrors());
            }
            return MAPPER.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String millis(long ms) {
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    private static String capitalize(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
