package dev.idemlab.lab.infra;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;

/**
 * Starts a private PostgreSQL from the binaries bundled in the lab's own dependencies: a fresh data
 * directory, 127.0.0.1 only, an ephemeral port. PostgreSQL refuses to run as root; when the JVM does,
 * the launcher runs the binaries in a user namespace of their own, which needs unprivileged user
 * namespaces enabled on the machine (the failure message says so when they are not).
 *
 * <p>Stateless and thread-safe; each call starts its own server.
 */
final class BundledPostgres {

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private BundledPostgres() { }

    /**
     * Starts a server. The bundled binaries' launcher starts PostgreSQL with {@code -F} (fsync off) and
     * {@code synchronous_commit=off}, and command-line settings outrank {@code ALTER SYSTEM}, so a
     * durable server has to be asked for here: {@code fsync=on} and {@code synchronous_commit=on} on
     * the same command line, after the launcher's own.
     *
     * @param durable whether the server keeps an acknowledged commit (fsync and synchronous commit on)
     * @throws ProvisioningException if the server cannot be started
     */
    static PostgresServer start(boolean durable) {
        ServerRegistry.reapStale();
        Path dataDirectory = null;
        try {
            // A data directory of the lab's choosing, so that the postmaster's pid can be read from it
            // and recorded: pg_ctl detaches the server, and a killed lab would leave it running.
            dataDirectory = Files.createTempDirectory("idemlab-pg-");
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    // The lab deletes it, once the postmaster is gone: the launcher's own shutdown hook
                    // also stops the server on Ctrl-C, and its clean-up, racing the lab's, logged an
                    // ERROR about a directory that was in fact deleted.
                    .setCleanDataDirectory(false)
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setPGStartupWait(STARTUP_WAIT);
            if (durable) {
                builder.setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on");
            }
            EmbeddedPostgres server = builder.start();
            ServerRegistry.Registration registration;
            long pid;
            try {
                pid = postmasterPid(dataDirectory);
                registration = ServerRegistry.record("postgres", pid, List.of(dataDirectory));
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            String address = "127.0.0.1:" + server.getPort();
            String url = "jdbc:postgresql://" + address + "/postgres";
            Path data = dataDirectory;
            return new PostgresServer(url, "postgres", null, Origin.BUNDLED, address, () -> {
                try {
                    server.close();
                } finally {
                    awaitExit(pid); // the launcher's hook may be the one stopping it: delete after it is gone
                    ServerRegistry.deleteTree(data);
                    registration.close();
                }
            });
        } catch (IOException | RuntimeException e) {
            if (dataDirectory != null) {
                ServerRegistry.deleteTree(dataDirectory);
            }
            throw new ProvisioningException("could not start the bundled PostgreSQL binary: " + e.getMessage(), e);
        }
    }

    /** Waits, up to the startup wait, for the postmaster to have exited; returns early if it never ran. */
    private static void awaitExit(long pid) {
        ProcessHandle.of(pid).ifPresent(process -> {
            try {
                process.onExit().get(STARTUP_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // still running: the directory is deleted as far as it can be, the registry reaps the rest
            }
        });
    }

    /** The first line of {@code postmaster.pid}: the server's pid. */
    private static long postmasterPid(Path dataDirectory) throws IOException {
        List<String> lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"));
        try {
            return Long.parseLong(lines.get(0).trim());
        } catch (RuntimeException e) {
            throw new IOException("postmaster.pid names no pid: " + lines, e);
        }
    }
}
