package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CoordinatorFactory;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the lab's command line in this JVM and captures what it printed. */
record LabRun(int exitCode, String out, String err) {

    static LabRun of(String... args) {
        return with(CoordinatorFactory.LIBRARY, args);
    }

    static LabRun with(CoordinatorFactory coordinators, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = LabCommand.commandLine(coordinators);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new LabRun(exitCode, out.toString(), err.toString());
    }
}
