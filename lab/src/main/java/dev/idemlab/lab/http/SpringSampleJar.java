package dev.idemlab.lab.http;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the Spring Boot sample's runnable jar is: the system property {@value #PROPERTY}, else the
 * environment variable {@value #ENV}, else {@value #IN_REPOSITORY} in the repository the lab was built
 * in (found from the lab's own jar or classes), else the same path under the working directory.
 * Stateless and thread-safe.
 */
public final class SpringSampleJar {

    /** A system property naming the jar. */
    public static final String PROPERTY = "idemlab.sample.jar";
    /** An environment variable naming the jar. */
    public static final String ENV = "IDEMLAB_SAMPLE_JAR";
    /** Where the build leaves it, relative to the repository. */
    public static final String IN_REPOSITORY = "examples/spring-boot-payments/target/spring-boot-payments.jar";
    /** How to build it, for messages. */
    public static final String HOW_TO_BUILD = "build it with ./mvnw -B -q package -DskipTests (or -pl "
            + "examples/spring-boot-payments -am), or name it with -D" + PROPERTY + "=PATH or " + ENV;

    private SpringSampleJar() { }

    /** The jar, if it is where the lab looks. */
    public static Optional<Path> find() {
        return candidates().stream().filter(Files::isRegularFile).findFirst();
    }

    /** Every place the lab looks, in order, for a message that says none had it. */
    public static List<Path> candidates() {
        List<Path> candidates = new ArrayList<>();
        String property = System.getProperty(PROPERTY);
        String env = System.getenv(ENV);
        if (property != null && !property.isBlank()) {
            candidates.add(Path.of(property));
            return candidates; // named: nowhere else
        }
        if (env != null && !env.isBlank()) {
            candidates.add(Path.of(env));
            return candidates;
        }
        repository().ifPresent(root -> candidates.add(root.resolve(IN_REPOSITORY)));
        Path here = Path.of("").toAbsolutePath().resolve(IN_REPOSITORY);
        if (!candidates.contains(here)) {
            candidates.add(here);
        }
        return candidates;
    }

    /** The repository the lab runs from: lab/target/lab.jar or lab/target/classes, three levels up. */
    private static Optional<Path> repository() {
        try {
            Path code = Path.of(SpringSampleJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path root = code.toAbsolutePath().getParent();
            for (int up = 0; up < 2 && root != null; up++) {
                root = root.getParent();
            }
            return Optional.ofNullable(root);
        } catch (java.net.URISyntaxException | SecurityException | NullPointerException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** {@code no Spring sample jar at A or B: build it ...}. */
    public static String missing() {
        return "no Spring sample jar at " + String.join(" or ", candidates().stream().map(Path::toString).toList())
                + ": " + HOW_TO_BUILD;
    }
}
