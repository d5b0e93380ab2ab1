package dev.idemlab.lab.cli;

import dev.idemlab.lab.cost.SweepStream;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/** {@code lab sweep}: a steady stream of first calls into PostgreSQL, and whether the sweep keeps the table flat. */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        description = "Streams first calls (a reserve, then a complete with a short ttl) into the lab's own private "
                + "PostgreSQL at a steady rate, and samples the table as it goes: the stream's rows, how many of them "
                + "have expired and wait for the sweep, the table's size with its indexes, and what the sweeper "
                + "deleted. Exits 1 when, once the first ttl has passed, the rows exceed what the ttl keeps alive plus "
                + "what expires between two wakes of the sweeper and a batch.")
final class SweepCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "5m", converter = DurationConverter.class,
            description = "How long to stream: 100ms to 1h. Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--ttl", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
            description = "Each record's ttl, at least 1s. Default: ${DEFAULT-VALUE}.")
    Duration ttl;

    @Option(names = "--rate", paramLabel = "N", defaultValue = "300",
            description = "First calls a second, 1 to 5000. Default: ${DEFAULT-VALUE}.")
    int rate;

    @Option(names = "--every", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
            description = "How often to sample the table. Default: ${DEFAULT-VALUE}.")
    Duration every;

    @Option(names = "--sweep-every-writes", paramLabel = "N", hidden = true,
            description = "The store's sweepEveryWrites, for a short run; the store's default otherwise.")
    Integer sweepEveryWrites;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table or markdown. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Override
    public Integer call() {
        if (rate < 1 || rate > 5000) {
            throw new UsageException("--rate must be from 1 to 5000, got " + rate);
        }
        if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new UsageException("--ttl must be at least 1s, got " + ttl.toMillis() + "ms");
        }
        if (sweepEveryWrites != null && sweepEveryWrites < 1) {
            throw new UsageException("--sweep-every-writes must be at least 1, got " + sweepEveryWrites);
        }
        OutputOptions output = OutputOptions.tableOrMarkdown(format, out);
        PrintWriter err = spec.commandLine().getErr();
        err.println("sweep: " + rate + " first calls a second for " + duration.toSeconds() + " s, ttl "
                + ttl.toSeconds() + " s, on postgres");
        err.flush();
        UnaryOperator<dev.idemlab.idempotency.store.postgres.PostgresStoreConfig.Builder> tune =
                sweepEveryWrites == null ? builder -> builder : builder -> builder.sweepEveryWrites(sweepEveryWrites);
        SweepStream.Result result;
        try (StoreBackend backend = PrivateServers.open("postgres",
                "lab sweep runs on the lab's own private PostgreSQL only (it counts the table's rows)")) {
            result = SweepStream.run((PostgresBackend) backend, duration, ttl, rate, every, tune, sample -> {
                err.println(String.format(Locale.ROOT, "sweep: %.0f s: %,d written, %,d rows, %,d expired",
                        sample.atSeconds(), sample.written(), sample.rows(), sample.expired()));
                err.flush();
            });
        }
        output.emit(render(result, format == ReportFormat.MARKDOWN), spec.commandLine().getOut());
        return result.flat() ? 0 : 1;
    }

    private static String render(SweepStream.Result result, boolean markdown) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%s%d first calls a second for %d s, ttl %d s, on %s; the sweeper woken "
                        + "every %,d reserves, %,d rows a batch. The ttl keeps %,d rows alive at this rate; a sweep that "
                        + "keeps up leaves at most %,d.%n%n", markdown ? "" : "sweep: ", result.rate(),
                result.duration().toSeconds(), result.ttl().toSeconds(), result.server().describeWithDurability(),
                result.sweepEveryWrites(), result.sweepBatch(), result.liveAtRate(), result.bound()));
        out.append(markdown ? "| at | written | rows | expired, not yet swept | table with indexes | swept |\n"
                + "|---|---|---|---|---|---|\n" : String.format(Locale.ROOT, "%8s %10s %9s %9s %12s %9s%n", "at",
                "written", "rows", "expired", "table bytes", "swept"));
        for (SweepStream.Sample sample : result.samples()) {
            out.append(String.format(Locale.ROOT, markdown ? "| %.0f s | %,d | %,d | %,d | %,d B | %,d |%n"
                            : "%6.0f s %,10d %,9d %,9d %,12d %,9d%n", sample.atSeconds(), sample.written(),
                    sample.rows(), sample.expired(), sample.tableBytes(), sample.swept()));
        }
        out.append(markdown ? "\n" : "").append(result.flat()
                ? "verdict: flat: once the first ttl had passed the rows stayed within the bound"
                : "verdict: growing: the rows passed the bound, the sweep falls behind").append('\n');
        return out.toString();
    }
}
