package dev.idemlab.lab.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.lab.load.ErrorKind;
import dev.idemlab.lab.load.LatencySummary;
import dev.idemlab.lab.load.LedgerCheck;
import dev.idemlab.lab.load.LoadComparison;
import dev.idemlab.lab.load.LoadRun;
import dev.idemlab.lab.load.LoadSettings;
import dev.idemlab.lab.load.WorkerRun;
import java.io.UncheckedIOException;

/**
 * The load report for machines: settings, the JVM and cores, one object per store and policy
 * (server, ledger findings, latency percentiles, throughput), and the verdict.
 */
final class LoadJson {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private LoadJson() { }

    static String render(LoadComparison comparison) {
        ObjectNode root = MAPPER.createObjectNode();
        root.set("settings", settings(comparison.settings()));
        root.putObject("environment")
                .put("java", System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")")
                .put("cores", Runtime.getRuntime().availableProcessors())
                .put("maxHeapMb", Runtime.getRuntime().maxMemory() / 1048576);
        comparison.runs().forEach(run -> root.withArray("runs").add(run(run)));
        root.put("passed", comparison.passed());
        comparison.failures().forEach(failure -> root.withArray("failures").add(failure));
        try {
            return MAPPER.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode settings(LoadSettings settings) {
        ObjectNode node = MAPPER.createObjectNode()
                .put("clients", settings.clients())
                .put("retryRate", settings.retryRate())
                .put("providerLatencyMs", settings.providerLatency().toMillis())
                .put("keys", settings.keys())
                .put("seed", settings.seed())
                .put("loop", settings.openLoop() ? "open" : "closed")
                .put("latencyFrom", settings.openLoop() ? "intended start" : "send");
        if (settings.openLoop()) {
            node.put("ratePerSecond", settings.rate());
        }
        if (settings.stopsByCount()) {
            node.put("requestsPerRun", settings.requests());
        } else {
            node.put("durationMsPerRun", settings.duration().toMillis());
        }
        return node;
    }

    private static ObjectNode run(LoadRun run) {
        ObjectNode node = MAPPER.createObjectNode();
        node.putObject("store").put("name", run.server().store()).put("version", run.server().version())
                .put("origin", run.server().origin().id()).put("address", run.server().address())
                .put("describe", run.server().describeWithDurability())
                .put("durability", run.server().durability());
        LedgerCheck check = run.check();
        node.put("policy", run.policyName())
                .put("promisesExactlyOnce", run.policy().promisesExactlyOnce())
                .put("passed", check.passed())
                .put("requests", check.requests())
                .put("retries", run.retriesSent())
                .put("answered", check.answered())
                .put("keysCharged", check.keysCharged())
                .put("charges", check.charges())
                .put("duplicateCharges", check.duplicateCharges())
                .put("disagreements", check.disagreements())
                .put("responsesNotInLedger", check.responsesNotInLedger())
                .put("splitKeys", check.splitKeys())
                .put("inProgress", check.inProgress())
                .put("waits", check.waits())
                .put("indeterminate", check.indeterminate())
                .put("storageErrors", check.storageErrors())
                .put("unattributedCharges", check.unattributedCharges());
        ObjectNode errors = node.putObject("errors");
        for (ErrorKind kind : ErrorKind.values()) {
            errors.put(kind.id(), check.errors().get(kind));
        }
        node.put("elapsedMs", run.elapsedNanos() / 1_000_000)
                .put("throughputPerSecond", Math.round(run.throughput()));
        node.set("latencyMs", latency(run.latency()));
        node.put("transport", run.workers().isEmpty() ? "in-process" : "http");
        for (WorkerRun worker : run.workers()) {
            ObjectNode row = node.withArray("workers").addObject().put("worker", worker.worker()).put("pid", worker.pid())
                    .put("requests", worker.requests()).put("duplicatesHandedOff", worker.retriesSent())
                    .put("elapsedMs", worker.elapsedNanos() / 1_000_000)
                    .put("throughputPerSecond", Math.round(worker.throughput()));
            row.set("latencyMs", latency(worker.latency()));
        }
        node.put("heapUsedAfterGcMb", Math.round(run.heapUsedBytes() / 1048576.0 * 10) / 10.0);
        node.put("historyMb", Math.round(run.historyBytes() / 1048576.0 * 10) / 10.0);
        return node;
    }

    private static ObjectNode latency(LatencySummary latency) {
        return MAPPER.createObjectNode().put("count", latency.count()).put("p50", latency.p50())
                .put("p90", latency.p90()).put("p99", latency.p99())
                .put("p99.9", latency.p999()).put("max", latency.max());
    }
}
