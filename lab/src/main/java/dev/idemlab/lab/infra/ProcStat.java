package dev.idemlab.lab.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the kernel says of a process in {@code /proc/<pid>/stat}: its fields from the third on (the
 * state, the parent, ..., the start ticks), read after the command, which may hold spaces and
 * parentheses. Empty where there is no {@code /proc}, or the process is gone. Stateless.
 */
final class ProcStat {

    /** The index of the state (field 3) among the fields after the command. */
    static final int STATE = 0;
    /** The index of {@code starttime} (field 22), the clock ticks from boot to the process's start. */
    static final int START_TICKS = 19;

    private ProcStat() { }

    /** Field {@code index} (counted after the command) of process {@code pid}, where {@code /proc} has it. */
    static Optional<String> field(long pid, int index) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" ");
            return fields.length > index ? Optional.of(fields[index]) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
