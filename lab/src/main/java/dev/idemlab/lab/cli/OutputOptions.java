package dev.idemlab.lab.cli;

import dev.idemlab.lab.report.ReportFile;
import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;

/** How and where a report goes. */
final class OutputOptions {

    static final String OUT_HELP = "Write the report to FILE instead of standard output: a regular file, created "
            + "with the usual mode (0644 under umask 022) in an existing directory, or replaced whole and atomically. "
            + "A symbolic link to a regular file writes through to that file (the link stays); a directory, device, "
            + "FIFO or socket is refused. Checked before the run starts.";

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table (the post's rows), json, markdown (with a sequence diagram). Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--out", paramLabel = "FILE", description = OUT_HELP)
    Path out;

    private ReportFile file;

    /**
     * Checks {@code --out} before anything runs.
     *
     * @throws UsageException saying why the path cannot take the report
     */
    /**
     * The output of a command that writes a table or Markdown only ({@code lab cost}, {@code lab sweep}),
     * validated.
     *
     * @throws UsageException for {@code --format json}, or an {@code --out} that cannot be written
     */
    static OutputOptions tableOrMarkdown(ReportFormat format, Path out) {
        if (format == ReportFormat.JSON) {
            throw new UsageException("--format must be table or markdown, got 'json'");
        }
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.validate();
        return output;
    }

    void validate() {
        if (out != null && file == null) {
            try {
                file = ReportFile.check(out);
            } catch (ReportFile.Refused refused) {
                throw new UsageException("--out " + out + ": " + refused.getMessage());
            }
        }
    }

    /**
     * Prints the report, or writes it to {@code --out} whole (through a temporary file in the same
     * directory, moved into place) and says where.
     *
     * @throws CommandFailure if the file could not be written; it is then as it was
     */
    void emit(String report, PrintWriter stdout) {
        if (out == null) {
            stdout.print(report);
            stdout.flush();
            return;
        }
        validate();
        try {
            file.write(report);
        } catch (ReportFile.Refused refused) {
            throw new CommandFailure("--out " + out + ": " + refused.getMessage() + "; the report was not written");
        } catch (IOException e) {
            throw new CommandFailure("--out " + out + ": the report could not be written: " + e);
        }
        stdout.println("wrote " + format.id() + " report to " + out);
        stdout.flush();
    }
}
