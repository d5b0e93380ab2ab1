package dev.idemlab.lab.report;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;

/**
 * The file a report goes to ({@code --out}): a regular file, written whole or not at all.
 *
 * <ul>
 *   <li>A path that does not exist yet is created in its directory, which must exist and be writable,
 *       with the mode any new file gets ({@code 0666} less the umask: {@code 0644} under the usual {@code 022}).</li>
 *   <li>An existing regular file is replaced atomically: the report is written to a temporary file in the
 *       same directory, then moved over it; the file keeps its permission bits.</li>
 *   <li>A symbolic link to a regular file writes through: the <em>target</em> is replaced, as above, in the
 *       target's directory; the link itself is never replaced.</li>
 *   <li>Anything else is refused: a directory, a device node, a FIFO, a socket, a link to one of those or to
 *       nothing.</li>
 * </ul>
 *
 * {@link #check(Path)} says why a path cannot take a report before anything runs; {@link #write(String)}
 * checks again, so that what appeared at the path in the meantime is never replaced either.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReportFile {

    /** A path that cannot take a report; the message is the reason, without the path. */
    public static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String reason) {
            super(reason);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path requested;

    private ReportFile(Path requested) {
        this.requested = requested;
    }

    /**
     * A report file at {@code path}, checked now.
     *
     * @throws Refused saying why {@code path} cannot take a report
     */
    public static ReportFile check(Path path) throws Refused {
        if (Objects.requireNonNull(path, "path").toString().isEmpty()) {
            throw new Refused("is empty; give a file name");
        }
        ReportFile file = new ReportFile(path);
        file.probe(file.target());
        return file;
    }

    /**
     * Creates and removes a file beside the target, as {@link #write} will: a directory whose
     * permissions say yes may still take no new file (a read-only or virtual file system).
     */
    private void probe(Target target) throws Refused {
        Path probe = target.file().getParent().resolve("." + target.file().getFileName() + "."
                + HexFormat.of().toHexDigits(RANDOM.nextLong()) + ".probe");
        try {
            Files.createFile(probe);
            Files.delete(probe);
        } catch (IOException e) {
            throw new Refused("cannot be written: the directory " + target.file().getParent()
                    + " takes no new file beside it (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** The path as given. */
    public Path path() {
        return requested;
    }

    /**
     * Writes {@code text} (UTF-8) whole, replacing the target atomically.
     *
     * @throws Refused if the path became something that cannot take a report since {@link #check(Path)}
     * @throws IOException if writing or moving failed; the target is then as it was
     */
    public void write(String text) throws Refused, IOException {
        Target target = target();
        Path dir = target.file().getParent();
        Path temp = dir.resolve("." + target.file().getFileName() + "." + HexFormat.of().toHexDigits(RANDOM.nextLong())
                + ".tmp");
        try {
            // CREATE_NEW without attributes: the mode every new file gets under the umask (not 0600 as
            // Files.createTempFile would give).
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            if (target.keepPermissions() != null) {
                Files.setPosixFilePermissions(temp, target.keepPermissions());
            }
            Files.move(temp, target.file(), StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** The regular file to replace or create, and the permissions to keep. */
    private record Target(Path file, Set<PosixFilePermission> keepPermissions) { }

    private Target target() throws Refused {
        Path path = requested.toAbsolutePath();
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            Path file = path;
            if (Files.isSymbolicLink(path)) {
                if (!Files.exists(path)) {
                    throw new Refused("is a symbolic link to nothing (it would write through to its target, "
                            + "which does not exist)");
                }
                try {
                    file = path.toRealPath();
                } catch (IOException e) {
                    throw new Refused("is a symbolic link that cannot be followed: " + e.getMessage());
                }
            }
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (IOException e) {
                throw new Refused("cannot be read: " + e.getMessage());
            }
            String via = file.equals(path) ? "" : " (a symbolic link to " + file + ")";
            if (attributes.isDirectory()) {
                throw new Refused("is a directory" + via + "; give a file name");
            }
            if (!attributes.isRegularFile()) {
                throw new Refused("is not a regular file" + via + " but a device, FIFO or socket; "
                        + "--out writes regular files only");
            }
            if (!Files.isWritable(file)) {
                throw new Refused("is not writable" + via);
            }
            checkDirectory(file.getParent());
            return new Target(file, permissionsOf(file));
        }
        checkDirectory(path.getParent());
        return new Target(path, null);
    }

    private static void checkDirectory(Path dir) throws Refused {
        if (dir == null || !Files.exists(dir)) {
            throw new Refused("the directory " + dir + " does not exist");
        }
        if (!Files.isDirectory(dir)) {
            throw new Refused(dir + " is not a directory");
        }
        if (!Files.isWritable(dir)) {
            throw new Refused("the directory " + dir + " is not writable (the report is written next to its "
                    + "file, then moved into place)");
        }
    }

    private static Set<PosixFilePermission> permissionsOf(Path file) {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) == null) {
            return null;
        }
        try {
            return Files.getPosixFilePermissions(file);
        } catch (IOException e) {
            return null;
        }
    }
}
