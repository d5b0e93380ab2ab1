package dev.idemlab.lab.infra;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The lab's own record of the servers and child JVMs it started, so that none outlives the lab. Each
 * private server process and each holder JVM gets a pid file in a directory of this user's: which lab JVM started it (pid and start
 * time), the server's pid and start time, and the temporary directories to remove with it. Stopping
 * a server removes its file. A JVM killed outright (SIGKILL) runs no shutdown hook and leaves its
 * servers running; {@link #reapStale()}, called before a lab provisions anything, stops every server
 * whose lab is gone, removes its directories, and says so.
 *
 * <p>A process is only ever signalled when its pid, its start and the machine's boot match the file
 * (see {@link #startedAt}), so a pid reused by another program is not touched: where the kernel gives
 * start ticks, never; elsewhere unless it started within {@link #START_SLACK} of the recorded start. The directory is {@code idemlab-<user>} under the
 * temporary directory, or the system property {@value #DIR_PROPERTY}; it must belong to this user,
 * or nothing is recorded or reaped there.
 *
 * <p>Thread-safe.
 */
public final class ServerRegistry {

    /** The kind a holder JVM is recorded as: reaped with SIGKILL, never continued. */
    public static final String HOLDER = "holder JVM";

    /** A system property naming the directory of pid files instead of the default. */
    static final String DIR_PROPERTY = "idemlab.state.dir";

    private static final Logger LOG = LoggerFactory.getLogger(ServerRegistry.class);
    private static final String SUFFIX = ".server";
    private static final long STOP_WAIT_SECONDS = 10;
    /** How far apart two JVMs may see one process's start where there are no ticks: see {@link #startedAt}. */
    static final Duration START_SLACK = Duration.ofSeconds(5);
    private static volatile boolean reaped;

    /** One recorded server; {@link #close()} forgets it once it has been stopped. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    private ServerRegistry() { }

    /**
     * Records a server or child process this JVM started.
     *
     * @param kind what it is, for messages: redis-server, postgres, holder JVM
     * @param pid the server process's pid
     * @param cleanup directories to remove once it is stopped
     */
    public static Registration record(String kind, long pid, List<Path> cleanup) {
        Optional<Path> dir = directory();
        Optional<ProcessHandle> server = ProcessHandle.of(pid);
        if (dir.isEmpty() || server.isEmpty()) {
            return () -> { };
        }
        ProcessHandle self = ProcessHandle.current();
        Properties entry = new Properties();
        entry.setProperty("kind", kind);
        entry.setProperty("lab.pid", Long.toString(self.pid()));
        entry.setProperty("lab.start", startOf(self));
        startTicks(self.pid()).ifPresent(ticks -> entry.setProperty("lab.ticks", ticks));
        bootId().ifPresent(boot -> entry.setProperty("boot", boot));
        entry.setProperty("server.pid", Long.toString(pid));
        entry.setProperty("server.start", startOf(server.get()));
        startTicks(pid).ifPresent(ticks -> entry.setProperty("server.ticks", ticks));
        for (int i = 0; i < cleanup.size(); i++) {
            entry.setProperty("cleanup." + i, cleanup.get(i).toAbsolutePath().toString());
        }
        Path file = dir.get().resolve(self.pid() + "-" + pid + SUFFIX);
        try {
            Path temp = Files.createTempFile(dir.get(), ".", ".tmp");
            try (OutputStream out = Files.newOutputStream(temp)) {
                entry.store(out, "a server started by the idempotency lab; removed when it is stopped");
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("could not record the {} (pid {}) in {}: {}; if this lab is killed it may keep running",
                    kind, pid, dir.get(), e.getMessage());
            return () -> { };
        }
        return () -> {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // A stale file names a stopped server: the next reap finds it gone and removes the file.
            }
        };
    }

    /**
     * Stops the servers of lab JVMs that are gone and removes their directories; once per JVM.
     *
     * @return how many servers were stopped
     */
    public static synchronized int reapStale() {
        if (reaped) {
            return 0;
        }
        reaped = true;
        Optional<Path> dir = directory();
        if (dir.isEmpty()) {
            return 0;
        }
        int stopped = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.get(), "*" + SUFFIX)) {
            for (Path file : files) {
                stopped += reap(file) ? 1 : 0;
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("could not look for servers left by earlier lab runs in {}: {}", dir.get(), e.getMessage());
        }
        return stopped;
    }

    /** Reaps one file's server if its lab is gone; {@code true} when a running server was stopped. */
    static boolean reap(Path file) throws IOException {
        Properties entry = new Properties();
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            entry.load(in);
        } catch (IOException | IllegalArgumentException unreadable) {
            return false;
        }
        long labPid;
        long serverPid;
        try {
            labPid = Long.parseLong(entry.getProperty("lab.pid", ""));
            serverPid = Long.parseLong(entry.getProperty("server.pid", ""));
        } catch (NumberFormatException e) {
            return false;
        }
        if (ProcessHandle.of(labPid).filter(lab -> startedAt(lab, entry.getProperty("lab.start"), entry.getProperty("lab.ticks"),
                entry.getProperty("boot"))).isPresent()) {
            return false; // its lab is still running: the server is in use
        }
        String kind = entry.getProperty("kind", "server");
        boolean stopped = false;
        Optional<ProcessHandle> server = ProcessHandle.of(serverPid)
                .filter(process -> startedAt(process, entry.getProperty("server.start"),
                        entry.getProperty("server.ticks"), entry.getProperty("boot")));
        if (server.isPresent()) {
            if (HOLDER.equals(kind)) {
                server.get().destroyForcibly(); // stopped or not: a holder must not run on and charge
            } else {
                stop(server.get());
            }
            stopped = true;
            LOG.warn("stopped a {} (pid {}) left running by an earlier lab run (pid {}) that was killed",
                    kind, serverPid, labPid);
        }
        for (int i = 0; entry.getProperty("cleanup." + i) != null; i++) {
            deleteTree(Path.of(entry.getProperty("cleanup." + i)));
        }
        Files.deleteIfExists(file);
        return stopped;
    }

    /**
     * SIGCONT first (a server a fault stopped acts on no signal but SIGKILL until it is continued), then
     * SIGTERM, so that it shuts down cleanly; SIGKILL if it has not within a few seconds.
     */
    private static void stop(ProcessHandle server) {
        Signals.sendQuietly("CONT", server.pid());
        server.destroy();
        try {
            server.onExit().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.destroyForcibly();
        } catch (Exception e) {
            server.destroyForcibly();
        }
    }

    /** Removes {@code dir} and everything in it, never following a link out of it. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // best effort: what is left is harmless and named in no message
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort, as above
        }
    }

    /**
     * Whether {@code process} is the one recorded as started at {@code recordedStart}, or
     * {@code recordedTicks} clock ticks after the boot where the kernel says so ({@code /proc}).
     * The ticks never move; the instant does: it is the boot time each JVM reads, which follows the wall
     * clock (a step of the clock moves it as much), plus the ticks, so two JVMs can see one process start
     * seconds apart. Without ticks on both sides the instants may differ by {@link #START_SLACK}; a pid
     * reused by another program within that slack of the recorded start is then the one case this cannot
     * tell apart. A record from another boot of the machine ({@code recordedBoot}) names no process
     * running now.
     */
    static boolean startedAt(ProcessHandle process, String recordedStart, String recordedTicks, String recordedBoot) {
        Optional<String> boot = bootId();
        if (recordedBoot != null && boot.isPresent() && !boot.get().equals(recordedBoot)) {
            return false;
        }
        Optional<String> ticks = startTicks(process.pid());
        if (recordedTicks != null && ticks.isPresent()) {
            return ticks.get().equals(recordedTicks);
        }
        String actual = startOf(process);
        try {
            Duration apart = Duration.between(Instant.parse(actual), Instant.parse(recordedStart)).abs();
            return apart.compareTo(START_SLACK) <= 0;
        } catch (DateTimeParseException | NullPointerException unknown) {
            return actual.equals(recordedStart);
        }
    }

    /** This boot of the machine, where the kernel names it; empty elsewhere. */
    static Optional<String> bootId() {
        try {
            return Optional.of(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The clock ticks from boot to the start of process {@code pid}, where {@code /proc} says; empty elsewhere. */
    static Optional<String> startTicks(long pid) {
        return ProcStat.field(pid, ProcStat.START_TICKS);
    }

    static String startOf(ProcessHandle process) {
        return process.info().startInstant().map(Instant::toString).orElse("unknown");
    }

    /** This user's directory of pid files, created private; empty if it is not this user's. */
    private static Optional<Path> directory() {
        String configured = System.getProperty(DIR_PROPERTY);
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = configured != null ? Path.of(configured)
                : Path.of(System.getProperty("java.io.tmpdir"), "idemlab-" + user);
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.getFileAttributeView(dir.getParent(), PosixFileAttributeView.class) != null) {
                    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectories(dir);
                }
            }
            if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir)
                    || !Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                LOG.warn("{} is not a directory of this user's: servers are not recorded there", dir);
                return Optional.empty();
            }
            return Optional.of(dir);
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** The directories of {@code paths} that exist, for a registration's cleanup list. */
    static List<Path> existing(Path... paths) {
        List<Path> found = new ArrayList<>();
        for (Path path : paths) {
            if (path != null && Files.exists(path)) {
                found.add(path);
            }
        }
        return found;
    }
}
