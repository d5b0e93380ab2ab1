package dev.idemlab.lab.cli;

import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** How and where a report goes. */
final class OutputOptions {

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table (the post's rows), json, markdown (with a sequence diagram). Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Write the report to FILE (written whole, or not at all) instead of standard output.")
    Path out;

    /** Prints the report, or writes it to --out through a temporary file so nothing is left half-written. */
    void emit(String report, PrintWriter stdout) {
        if (out == null) {
            stdout.print(report);
            stdout.flush();
            return;
        }
        try {
            Path target = out.toAbsolutePath();
            Files.createDirectories(target.getParent());
            Path temp = Files.createTempFile(target.getParent(), ".lab-", ".tmp");
            try {
                Files.writeString(temp, report, StandardCharsets.UTF_8);
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
            stdout.println("wrote " + format.id() + " report to " + out);
            stdout.flush();
        } catch (IOException e) {
            throw new UsageException("cannot write --out " + out + ": " + e.getMessage());
        }
    }
}
