package dev.idemlab.lab.cli;

import dev.idemlab.lab.load.LoadComparison;
import dev.idemlab.lab.report.LoadCharts;
import dev.idemlab.lab.report.LoadReport;
import dev.idemlab.lab.report.ReportFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code lab load --results DIR}: checked before anything runs, then load.json, load.csv, load.md and the charts. */
final class LoadResults {

    private LoadResults() { }

    /** @throws UsageException if {@code --results} cannot take the files, before anything runs */
    static void validate(Path results) {
        if (results == null) {
            return;
        }
        Path dir = results.toAbsolutePath();
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new UsageException("--results " + results + ": is not a directory");
            }
            if (!Files.isWritable(dir)) {
                throw new UsageException("--results " + results + ": the directory is not writable");
            }
            return;
        }
        Path parent = dir.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new UsageException("--results " + results + ": the directory " + parent + " does not exist");
        }
        if (!Files.isWritable(parent)) {
            throw new UsageException("--results " + results + ": the directory " + parent + " is not writable");
        }
    }

    static void write(Path results, LoadComparison comparison, PrintWriter stdout) throws IOException {
        Files.createDirectories(results);
        List<Path> written = new ArrayList<>();
        written.add(write(results.resolve("load.json"), LoadReport.render(ReportFormat.JSON, comparison)));
        written.add(write(results.resolve("load.csv"), LoadReport.csv(comparison)));
        written.add(write(results.resolve("load.md"), LoadReport.render(ReportFormat.MARKDOWN, comparison)));
        written.addAll(LoadCharts.write(comparison, results));
        written.forEach(path -> stdout.println("wrote " + path));
        stdout.flush();
    }

    private static Path write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }
}
