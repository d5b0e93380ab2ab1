package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The built {@code lab.jar}, run as a user runs it: a separate process, its output and exit code. */
class LabJarIT {

    private record Result(int exitCode, String out, String err) { }

    private static Result lab(String... args) throws IOException, InterruptedException {
        return labWithEnv(Map.of(), args);
    }

    private static Result labWithState(Path state, String... args) throws IOException, InterruptedException {
        return run(List.of("-Didemlab.state.dir=" + state), Map.of(), args);
    }

    private static Result labWithEnv(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(List.of(), env, args);
    }

    private static Result run(List<String> jvmOptions, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("lab.jar", "target/lab.jar"));
        assertThat(jar).exists();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("lab-out", ".txt");
        Path err = Files.createTempFile("lab-err", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().remove("IDEMLAB_REDIS_URL");
            builder.environment().remove("IDEMLAB_PG_URL");
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("lab " + String.join(" ", args) + " did not finish");
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    void theRunPolicyDoubleChargesOnTheDefaultStore() throws Exception {
        // The retry lands well inside the first call, and well before it stores: robust on a noisy machine.
        Result run = lab("scenario", "in-flight", "--policy", "run", "--latency-ms", "800", "--retry-at-ms", "200");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("store: redis").contains("responses=[ch_1, ch_1]")
                .contains("charges made=[ch_1, ch_2]");
    }

    /**
     * Issue 29: {@code scenario all} printed two {@code [WARN] OwnerAttempt} lines, one per lease-overrun run
     * whose holder outlived its lease: what the row says already (A's "lease lost"). Standard error carries
     * the lab's own lines and nothing else.
     */
    @Test
    void leaseOverrunSaysTheLostLeaseInItsRowsAndLogsNothing() throws Exception {
        Result run = lab("scenario", "lease-overrun");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("(lease lost: another attempt may have run too)")
                .contains("StaleFenceException");
        assertThat(run.err().lines()).as("standard error: %n%s", run.err()).isNotEmpty()
                .allSatisfy(line -> assertThat(line).startsWith("lab: "));
    }

    @Test
    void storeDownFailsOpenOnARealStoppedRedis() throws Exception {
        Result open = lab("scenario", "store-down");
        assertThat(open.exitCode()).as(open.err()).isZero();
        assertThat(open.out()).contains("the action ran anyway: ch_1").contains("storage errors=1 (fail open)")
                .contains("stopped a second private redis-server");
        assertThat(open.err()).as("the row says it; no log line repeats it").doesNotContain("[WARN]");
        Result closed = lab("scenario", "store-down", "--on-store-failure", "closed");
        assertThat(closed.out()).contains("IdempotencyStoreUnavailableException").contains("charges made=0");
    }

    @Test
    void aUsageErrorIsOneLineAndExitTwo() throws Exception {
        Result run = lab("scenario", "in-flight", "--key", "k".repeat(256));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("key must be 1 to 255 Unicode code points").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void thePrivateServerIsStoppedWhenTheRunEnds() throws Exception {
        Result run = lab("scenario", "key-reuse", "--latency-ms", "1");
        java.util.regex.Matcher address = java.util.regex.Pattern.compile("at 127\\.0\\.0\\.1:(\\d+)").matcher(run.out());
        assertThat(address.find()).as(run.out()).isTrue();
        int port = Integer.parseInt(address.group(1));
        assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close())
                .as("nothing listens on the lab's private port %d any more", port)
                .isInstanceOf(java.net.ConnectException.class);
    }

    // --out: a regular file or nothing, checked before the run

    @Test
    void outIntoADirectoryThatDoesNotExistIsRefusedBeforeTheRun(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Result run = lab("scenario", "key-reuse", "--store", "memory", "--latency-ms", "3000",
                "--out", file.resolve("x.txt").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--out " + file.resolve("x.txt") + ": " + file + " is not a directory");
        assertThat(run.out()).as("nothing ran").isEmpty();
        Result missing = lab("scenario", "key-reuse", "--store", "memory", "--out", dir.resolve("no/such/r.txt").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("the directory " + dir.resolve("no/such") + " does not exist");
    }

    @Test
    void outCreatesAFileWithTheModeOfAnyNewFile(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report.txt");
        Result run = lab("scenario", "key-reuse", "--store", "memory", "--latency-ms", "1", "--out", report.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("wrote table report to " + report + System.lineSeparator());
        assertThat(Files.readString(report)).contains("key-reuse").contains("IdempotencyKeyReuseException");
        assumeTrue(Files.getFileAttributeView(report, PosixFileAttributeView.class) != null, "POSIX permissions");
        Path ordinary = dir.resolve("ordinary");
        Files.newOutputStream(ordinary).close(); // this JVM's umask is the lab's: both are children of this shell
        assertThat(Files.getPosixFilePermissions(report)).isEqualTo(Files.getPosixFilePermissions(ordinary));
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertThat(files).as("no temporary file left").hasSize(2);
        }
    }

    @Test
    void outReplacesAFileWholeAndKeepsItsMode(@TempDir Path dir) throws Exception {
        Path report = Files.writeString(dir.resolve("report.json"), "old");
        assumeTrue(Files.getFileAttributeView(report, PosixFileAttributeView.class) != null, "POSIX permissions");
        Files.setPosixFilePermissions(report, PosixFilePermissions.fromString("rw-rw----"));
        Result run = lab("scenario", "key-reuse", "--store", "memory", "--latency-ms", "1", "--format", "json",
                "--out", report.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(Files.readString(report)).startsWith("[");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(report))).isEqualTo("rw-rw----");
    }

    @Test
    void outThroughASymlinkWritesItsTargetAndKeepsTheLink(@TempDir Path dir) throws Exception {
        Path target = Files.writeString(dir.resolve("target.txt"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.txt"), target);
        Result run = lab("scenario", "key-reuse", "--store", "memory", "--latency-ms", "1", "--out", link.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(Files.isSymbolicLink(link)).as("the link is still a link").isTrue();
        assertThat(Files.readSymbolicLink(link)).isEqualTo(target);
        assertThat(Files.readString(target)).contains("key-reuse");
    }

    @Test
    void outRefusesADirectoryADeviceAndALinkToADirectoryOrToNothing(@TempDir Path dir) throws Exception {
        Path subdir = Files.createDirectory(dir.resolve("sub"));
        Path toDir = Files.createSymbolicLink(dir.resolve("to-dir"), subdir);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nothing"));
        assertRefused(subdir, "is a directory");
        assertRefused(toDir, "is a directory (a symbolic link to " + subdir + ")");
        assertRefused(dangling, "is a symbolic link to nothing");
        assertThat(Files.isSymbolicLink(toDir)).isTrue();
        assertThat(Files.isSymbolicLink(dangling)).isTrue();
        Path device = Path.of("/dev/null");
        assumeTrue(Files.exists(device) && !Files.isRegularFile(device) && !Files.isDirectory(device), "a device node");
        assertRefused(device, "is not a regular file");
        assertThat(Files.isRegularFile(device)).as("the device node is still one").isFalse();
        Path toDevice = Files.createSymbolicLink(dir.resolve("to-device"), device);
        assertRefused(toDevice, "is not a regular file (a symbolic link to " + device + ")");
        Files.delete(toDevice);
    }

    private static void assertRefused(Path out, String reason) throws Exception {
        Result run = lab("scenario", "key-reuse", "--store", "memory", "--latency-ms", "1", "--out", out.toString());
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains("--out " + out + ": " + reason).doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    // check: a gate that fails when it could not check what it was asked to

    @Test
    void checkFailsNamingAStoreItCouldNotCheck() throws Exception {
        int dead = deadPort();
        Result run = lab("check", "--stores", "redis", "--redis-url", "redis://127.0.0.1:" + dead);
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
        assertThat(run.out()).contains("FAIL redis: could not be checked: nothing answers at 127.0.0.1:" + dead)
                .contains("check: 0 passed, 1 failed, 0 skipped; could not check redis");
        assertThat(run.err()).doesNotContain("[WARN]").doesNotContain("Exception");

        // The rows checked are few on purpose: what is under test is the store that could not be checked.
        Result skipping = lab("check", "--stores", "memory,redis", "--allow-skip", "--scenarios", "key-reuse",
                "--redis-url", "redis://127.0.0.1:" + dead);
        assertThat(skipping.exitCode()).as(skipping.out()).isZero();
        assertThat(skipping.out()).contains("SKIP redis: could not be checked")
                .containsPattern("check: 1 passed, 0 failed, [0-9]+ skipped");
    }

    @Test
    void checkReportsOneLinePerFinishedStepOnStandardErrorWhenPiped() throws Exception {
        // A few scenarios give a first row, skipped ones and several in between; the whole gate adds nothing.
        Result run = lab("check", "--stores", "memory", "--scenarios",
                "key-reuse,provider-timeout,store-down,scope,large-result");
        assertThat(run.exitCode()).as(run.out()).isZero();
        List<String> steps = run.err().lines().filter(line -> line.startsWith("lab: [")).toList();
        int total = steps.size();
        assertThat(total).isGreaterThan(5);
        assertThat(steps.get(0)).startsWith("lab: [1/" + total + "] key-reuse/");
        for (int i = 0; i < total; i++) {
            assertThat(steps.get(i)).startsWith("lab: [" + (i + 1) + "/" + total + "] ");
        }
        assertThat(steps).anyMatch(line -> line.contains("store-down/wait on memory: skipped ("));
        assertThat(run.err()).doesNotContain("\r");
        assertThat(run.out()).doesNotContain("lab: [");
    }

    @Test
    void aUrlFromTheEnvironmentThatIsNotOneIsAUsageErrorNamingTheVariable() throws Exception {
        Result run = labWithEnv(Map.of("IDEMLAB_REDIS_URL", "garbage"), "scenario", "key-reuse");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("lab: IDEMLAB_REDIS_URL garbage: the scheme must be redis or rediss (expected redis://");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void withoutDockerTheContainerOriginIsOneLineNotAStackOfErrors() throws Exception {
        assumeFalse(org.testcontainers.DockerClientFactory.instance().isDockerAvailable(), "Docker is available here");
        for (String[] args : List.of(new String[] {"scenario", "key-reuse", "--redis-from", "container"},
                new String[] {"scenario", "key-reuse", "--store", "postgres", "--pg-from", "container"})) {
            Result run = lab(args);
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err().lines()).as(run.err()).hasSize(1).first().asString()
                    .startsWith("lab: error: ").contains("no Docker: the container origin is not available");
            assertThat(run.err()).doesNotContain("[ERROR]").doesNotContain("NullPointerException");
        }
    }

    private static int deadPort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    // Private servers never outlive the lab

    @Test
    void aServerLeftByAKilledLabIsStoppedByTheNextRun(@TempDir Path state) throws Exception {
        Process killed = startLab(state, "scenario", "in-flight", "--policy", "wait", "--latency-ms", "60000");
        Properties entry = awaitServerRecord(state, killed);
        ProcessHandle server = ProcessHandle.of(Long.parseLong(entry.getProperty("server.pid"))).orElseThrow();
        Path serverDir = Path.of(entry.getProperty("cleanup.0"));
        try {
            killed.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook runs
            assertThat(server.isAlive()).as("a SIGKILLed JVM stops nothing itself").isTrue();

            Result next = labWithState(state, "scenario", "key-reuse", "--store", "memory", "--latency-ms", "1");

            assertThat(next.exitCode()).as(next.err()).isZero();
            assertThat(next.err()).contains("stopped a redis-server (pid " + server.pid() + ") left running by an "
                    + "earlier lab run (pid " + killed.pid() + ")");
            await().atMost(Duration.ofSeconds(30)).until(() -> !server.isAlive());
            assertThat(serverDir).doesNotExist();
            try (java.util.stream.Stream<Path> files = Files.list(state)) {
                assertThat(files).isEmpty();
            }
        } finally {
            killed.destroyForcibly();
            if (server.isAlive()) {
                server.destroyForcibly(); // the lab this test started left it: end it whatever happened above
            }
        }
    }

    @Test
    void sigtermStopsTheServerAndRemovesItsDirectory(@TempDir Path state) throws Exception {
        Process lab = startLab(state, "scenario", "in-flight", "--policy", "wait", "--latency-ms", "60000");
        Properties entry = awaitServerRecord(state, lab);
        ProcessHandle server = ProcessHandle.of(Long.parseLong(entry.getProperty("server.pid"))).orElseThrow();
        try {
            lab.destroy(); // SIGTERM: the shutdown hooks run
            assertThat(lab.waitFor(30, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> !server.isAlive());
            assertThat(Path.of(entry.getProperty("cleanup.0"))).as("the server's temporary directory").doesNotExist();
            try (java.util.stream.Stream<Path> files = Files.list(state)) {
                assertThat(files).as("its record is gone with it").isEmpty();
            }
        } finally {
            lab.destroyForcibly();
            if (server.isAlive()) {
                server.destroyForcibly();
            }
        }
    }

    /**
     * Issue 29: Ctrl-C while the failure lab holds its holder JVM stopped leaves no stopped child behind.
     * SIGTERM stands for it here: it runs the same shutdown hooks, and a build run in the background
     * starts its processes with SIGINT ignored.
     */
    @Test
    void endingTheLabWhileItsHolderJvmIsStoppedKillsTheHolder(@TempDir Path state) throws Exception {
        Process lab = startLab(state, "scenario", "lease-overrun", "--paused-holder");
        ProcessHandle holder = awaitStoppedHolder(state, lab);
        try {
            dev.idemlab.lab.infra.Signals.send("TERM", lab.pid());
            assertThat(lab.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(lab.exitValue()).as("the JVM's exit after SIGTERM").isEqualTo(143);
            await().atMost(Duration.ofSeconds(30)).until(() -> !holder.isAlive());
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try (java.util.stream.Stream<Path> files = Files.list(state)) {
                    return files.findAny().isEmpty();
                }
            });
        } finally {
            endBoth(lab, holder);
        }
    }

    /**
     * Issue 29: a load on PostgreSQL ended by a signal said nothing of it, and printed a WARN line per request
     * in flight while its server stopped under it. It now says it was interrupted and prints no WARN line.
     */
    @Test
    void anInterruptedLoadSaysSoAndPrintsNoWarnings(@TempDir Path state) throws Exception {
        Path err = state.resolveSibling(state.getFileName() + "-err.txt");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Didemlab.state.dir=" + state, "-jar", Path.of(System.getProperty("lab.jar", "target/lab.jar")).toString(),
                "load", "--store", "postgres", "--policy", "all", "--duration", "3s"));
        Process lab = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile()).start();
        try {
            // Once the result cache's run is reported, the next policy's clients are in flight.
            await().atMost(Duration.ofMinutes(2)).until(() -> Files.readString(err).contains("lab: load postgres/run:"));
            dev.idemlab.lab.infra.Signals.send("TERM", lab.pid());
            assertThat(lab.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(lab.exitValue()).as("the JVM's exit after SIGTERM").isEqualTo(143);
            String said = Files.readString(err);
            assertThat(said).contains("lab: interrupted: stopping the servers and child processes this run started")
                    .doesNotContain("[WARN]").doesNotContain("\tat ");
        } finally {
            lab.destroyForcibly();
            Files.deleteIfExists(err);
        }
    }

    /** Issue 29: a lab killed outright while its holder JVM was stopped: the next run continues and ends it. */
    @Test
    void aHolderJvmLeftStoppedByAKilledLabIsEndedByTheNextRun(@TempDir Path state) throws Exception {
        Process lab = startLab(state, "scenario", "lease-overrun", "--paused-holder");
        ProcessHandle holder = awaitStoppedHolder(state, lab);
        try {
            lab.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook runs
            assertThat(holder.isAlive()).as("a SIGKILLed JVM ends nothing itself").isTrue();

            Result next = labWithState(state, "scenario", "key-reuse", "--store", "memory", "--latency-ms", "1");

            assertThat(next.exitCode()).as(next.err()).isZero();
            assertThat(next.err()).contains("stopped a holder JVM (pid " + holder.pid() + ") left running by an "
                    + "earlier lab run (pid " + lab.pid() + ")");
            await().atMost(Duration.ofSeconds(30)).until(() -> !holder.isAlive());
            try (java.util.stream.Stream<Path> files = Files.list(state)) {
                assertThat(files).isEmpty();
            }
        } finally {
            endBoth(lab, holder);
        }
    }

    /** The holder JVM the lab recorded in {@code state}, once the lab has stopped it (SIGSTOP). */
    private static ProcessHandle awaitStoppedHolder(Path state, Process lab) {
        long[] pid = {-1};
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10)).until(() -> {
            try (java.util.stream.Stream<Path> files = Files.list(state)) {
                for (Path file : files.filter(f -> f.getFileName().toString().startsWith(lab.pid() + "-")).toList()) {
                    Properties entry = new Properties();
                    try (java.io.InputStream in = Files.newInputStream(file)) {
                        entry.load(in);
                    } catch (IOException beingWritten) {
                        continue;
                    }
                    if ("holder JVM".equals(entry.getProperty("kind"))
                            && stopped(Long.parseLong(entry.getProperty("server.pid")))) {
                        pid[0] = Long.parseLong(entry.getProperty("server.pid"));
                        return true;
                    }
                }
                return false;
            }
        });
        return ProcessHandle.of(pid[0]).orElseThrow();
    }

    /** Whether the process is stopped, by the state its {@code /proc} entry gives. */
    private static boolean stopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 1).strip().startsWith("T");
        } catch (IOException gone) {
            return false;
        }
    }

    /**
     * Issue 40, defect 6: Ctrl-C of a run on the bundled PostgreSQL printed an ERROR from the binaries'
     * launcher that it could not clean up the data directory, which the lab had in fact deleted: the
     * launcher's own shutdown hook and the lab's both stopped the server and both deleted the directory.
     * Now the lab alone deletes it, after the postmaster has exited. The two hooks race, so a run of the
     * old code printed the ERROR on some runs only; this one checks that no run prints it.
     */
    @Test
    void sigtermOfAPostgresRunPrintsNoErrorAboutTheDirectoryItRemoved(@TempDir Path state) throws Exception {
        Path err = state.resolveSibling(state.getFileName() + "-err.txt");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Didemlab.state.dir=" + state, "-jar", Path.of(System.getProperty("lab.jar", "target/lab.jar")).toString(),
                "scenario", "in-flight", "--store", "postgres", "--policy", "wait", "--latency-ms", "60000"));
        Process lab = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile()).start();
        Properties entry = awaitServerRecord(state, lab);
        ProcessHandle server = ProcessHandle.of(Long.parseLong(entry.getProperty("server.pid"))).orElseThrow();
        try {
            lab.destroy(); // SIGTERM: the shutdown hooks run, as on Ctrl-C
            assertThat(lab.waitFor(60, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> !server.isAlive());
            assertThat(Path.of(entry.getProperty("cleanup.0"))).as("the data directory").doesNotExist();
            assertThat(Files.readString(err)).doesNotContain("ERROR").doesNotContain("Could not clean up");
        } finally {
            lab.destroyForcibly();
            if (server.isAlive()) {
                server.destroyForcibly();
            }
            Files.deleteIfExists(err);
        }
    }

    /** Ends the lab this test started and its holder, whatever happened in the test. */
    private static void endBoth(Process lab, ProcessHandle holder) {
        lab.destroyForcibly();
        if (holder.isAlive()) {
            dev.idemlab.lab.infra.Signals.sendQuietly("CONT", holder.pid());
            holder.destroyForcibly();
        }
    }

    private static Process startLab(Path state, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Didemlab.state.dir=" + state, "-jar", Path.of(System.getProperty("lab.jar", "target/lab.jar")).toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** The pid file the lab writes once its server is up. */
    private static Properties awaitServerRecord(Path state, Process lab) throws IOException {
        await().atMost(Duration.ofMinutes(2)).until(() -> {
            try (java.util.stream.Stream<Path> files = Files.list(state)) {
                return files.anyMatch(f -> f.getFileName().toString().startsWith(lab.pid() + "-")
                        && f.getFileName().toString().endsWith(".server"));
            }
        });
        Properties entry = new Properties();
        try (java.util.stream.Stream<Path> files = Files.list(state)) {
            Path record = files.filter(f -> f.getFileName().toString().endsWith(".server")).findFirst().orElseThrow();
            try (java.io.InputStream in = Files.newInputStream(record)) {
                entry.load(in);
            }
        }
        return entry;
    }
}
