package dev.idemlab.idempotency.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a process has ended, for the checks that a closed server is gone. */
final class Exited {

    private Exited() { }

    /**
     * Whether {@code pid} no longer runs: no such process, or one that has exited and waits to be
     * reaped. PostgreSQL's postmaster is detached from the JVM, so where nothing reaps orphans (PID 1
     * in some containers) it stays a zombie, which {@link ProcessHandle#isAlive()} counts as alive.
     */
    static boolean exited(long pid) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                return stat.substring(stat.lastIndexOf(')') + 1).strip().startsWith("Z");
            } catch (IOException | RuntimeException noProcFileSystem) {
                return false;
            }
        }
        return true;
    }
}
