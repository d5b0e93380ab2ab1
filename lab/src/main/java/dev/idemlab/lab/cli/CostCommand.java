package dev.idemlab.lab.cli;

import dev.idemlab.lab.cost.RecordCost;
import dev.idemlab.lab.cost.RecordCosts;
import dev.idemlab.lab.cost.ServerTime;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code lab cost}: what a completed record costs each store, beside the same JSON written raw. */
@Command(name = "cost", mixinStandardHelpOptions = true,
        description = "Writes completed records (a reserve, then a complete with a JSON result) to the lab's own "
                + "private Redis and PostgreSQL, and the same JSON raw beside them (Redis: SET ... PX with the same "
                + "ttl; PostgreSQL: a table of key, JSON and expiry), then reads what each costs the server by its "
                + "own accounting (MEMORY USAGE of every key under the store's prefix; the table's size with its "
                + "indexes, as written and rewritten with live rows only). Also releases one reservation in ten and counts "
                + "what it left. On Redis it also reads the server's own time per call (INFO commandstats) for a "
                + "first call against SET NX PX then SET XX PX, and a replay against GET. Exits 1 when a Redis record "
                + "costs more than 1.3x its raw SET, a first call more than 3x its floor's server time or a replay "
                + "more than 2x GET's, or a released reservation left anything.")
final class CostCommand implements Callable<Integer> {

    static final List<String> STORES = List.of("redis", "postgres");
    /** The most first calls and replays whose server time is measured on Redis. */
    private static final int SERVER_TIME_CALLS = 20_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--stores", paramLabel = "STORES", split = ",", defaultValue = "redis,postgres",
            description = "redis, postgres, or both (comma-separated). Default: ${DEFAULT-VALUE}.")
    List<String> stores;

    @Option(names = "--records", paramLabel = "N", defaultValue = "20000",
            description = "Completed records to write, 100 to 1000000. Default: ${DEFAULT-VALUE}.")
    long records;

    @Option(names = "--result-bytes", paramLabel = "BYTES", defaultValue = "211",
            description = "Size of each record's JSON result, 80 to 65536. Default: ${DEFAULT-VALUE} (a charge).")
    int resultBytes;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table or markdown. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Override
    public Integer call() {
        if (records < 100 || records > 1_000_000) {
            throw new UsageException("--records must be from 100 to 1000000, got " + records);
        }
        if (resultBytes < 80 || resultBytes > 65_536) {
            throw new UsageException("--result-bytes must be from 80 to 65536, got " + resultBytes);
        }
        List<String> chosen = new ArrayList<>();
        for (String each : stores) {
            String name = each.trim().toLowerCase(Locale.ROOT);
            if (!STORES.contains(name)) {
                throw new UsageException("--stores must name stores among " + String.join(", ", STORES)
                        + " (a store that keeps its records in this process or on a cluster is not measured here), got '"
                        + each + "'");
            }
            if (!chosen.contains(name)) {
                chosen.add(name);
            }
        }
        OutputOptions output = OutputOptions.tableOrMarkdown(format, out);
        PrintWriter err = spec.commandLine().getErr();
        List<RecordCost> costs = new ArrayList<>();
        List<ServerTime> times = new ArrayList<>();
        for (String name : chosen) {
            err.println("cost: " + records + " records of " + resultBytes + " B on " + name);
            err.flush();
            try (StoreBackend backend = PrivateServers.open(name, "lab cost measures on the lab's own private "
                    + "servers only (it reads the server's own counters)")) {
                int n = (int) records;
                if (name.equals("redis")) {
                    costs.add(RecordCosts.redis((RedisBackend) backend, n, resultBytes, done -> progress(err, name, done, n)));
                    int calls = Math.min(n, SERVER_TIME_CALLS);
                    err.println("cost: redis: server time of " + calls + " first calls and replays, and of their floor");
                    err.flush();
                    times.add(RecordCosts.redisServerTime((RedisBackend) backend, calls, resultBytes));
                } else {
                    costs.add(RecordCosts.postgres((PostgresBackend) backend, n, resultBytes,
                            done -> progress(err, name, done, n)));
                }
            }
        }
        output.emit(CostReport.render(costs, times, format == ReportFormat.MARKDOWN), spec.commandLine().getOut());
        return costs.stream().allMatch(RecordCost::met) && times.stream().allMatch(ServerTime::met) ? 0 : 1;
    }

    private static void progress(PrintWriter err, String store, int done, int of) {
        err.println("cost: " + store + ": " + done + " of " + of + " records written");
        err.flush();
    }
}
