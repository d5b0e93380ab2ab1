package dev.idemlab.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What idempotency-bom pins, read from its pom in this checkout: the file a service imports, so that a
 * module's tests can check that they ran on the versions the bom promises.
 */
public final class IdempotencyBom {

    private static final Path POM = Path.of("idempotency", "idempotency-bom", "pom.xml");

    private IdempotencyBom() { }

    /**
     * The value of {@code property} in the bom's pom ({@code lettuce.version}, say).
     *
     * @throws IllegalStateException if no checkout above the working directory has the bom, or the pom
     *     has no such property
     */
    public static String property(String property) {
        Path pom = pom();
        try {
            Matcher value = Pattern.compile("<" + Pattern.quote(property) + ">([^<]+)</").matcher(Files.readString(pom));
            if (!value.find()) {
                throw new IllegalStateException("no " + property + " in " + pom);
            }
            return value.group(1).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + pom, e);
        }
    }

    /** The bom's pom, found from a module's directory (where tests run) or the checkout's root. */
    private static Path pom() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(POM))) {
                return dir.resolve(POM);
            }
        }
        throw new IllegalStateException("no " + POM + " above " + Path.of("").toAbsolutePath());
    }
}
