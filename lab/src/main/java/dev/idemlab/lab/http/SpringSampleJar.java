package dev.idemlab.lab.http;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where one of the Spring Boot samples' runnable jars is: a system property naming it, else an environment
 * variable, else where the build leaves it in the repository the lab was built in (found from the lab's own
 * jar or classes), else the same path under the working directory. The servlet sample
 * ({@code examples/spring-boot-payments}, {@link #SERVLET}) is the one the scenarios and the nemesis start;
 * the WebFlux one ({@link #WEBFLUX}) is measured beside it. The static methods are the servlet sample's.
 * Immutable and thread-safe.
 */
public final class SpringSampleJar {

    /** A system property naming the servlet sample's jar. */
    public static final String PROPERTY = "idemlab.sample.jar";
    /** An environment variable naming the servlet sample's jar. */
    public static final String ENV = "IDEMLAB_SAMPLE_JAR";
    /** Where the build leaves the servlet sample's jar, relative to the repository. */
    public static final String IN_REPOSITORY = "examples/spring-boot-payments/target/spring-boot-payments.jar";
    /** How to build the samples, for messages. */
    public static final String HOW_TO_BUILD = "build it with ./mvnw -B -q package -DskipTests (or -pl "
            + "examples/spring-boot-payments -am), or name it with -D" + PROPERTY + "=PATH or " + ENV;

    /** The servlet sample: the starter's {@code @Idempotent} on Spring MVC. */
    public static final SpringSampleJar SERVLET = new SpringSampleJar(PROPERTY, ENV, IN_REPOSITORY, HOW_TO_BUILD);
    /** The WebFlux sample: the starter's WebFlux filter on Reactor Netty. */
    public static final SpringSampleJar WEBFLUX = new SpringSampleJar("idemlab.webflux-sample.jar",
            "IDEMLAB_WEBFLUX_SAMPLE_JAR",
            "examples/spring-boot-payments-webflux/target/spring-boot-payments-webflux.jar",
            "build it with ./mvnw -B -q package -DskipTests (or -pl examples/spring-boot-payments-webflux -am), "
                    + "or name it with -Didemlab.webflux-sample.jar=PATH or IDEMLAB_WEBFLUX_SAMPLE_JAR");

    private final String property;
    private final String env;
    private final String inRepository;
    private final String howToBuild;

    private SpringSampleJar(String property, String env, String inRepository, String howToBuild) {
        this.property = property;
        this.env = env;
        this.inRepository = inRepository;
        this.howToBuild = howToBuild;
    }

    /** The servlet sample's jar, if it is where the lab looks. */
    public static Optional<Path> find() {
        return SERVLET.jar();
    }

    /** Every place the lab looks for the servlet sample's jar, in order. */
    public static List<Path> candidates() {
        return SERVLET.places();
    }

    /** {@code no Spring sample jar at A or B: build it ...}, for the servlet sample. */
    public static String missing() {
        return SERVLET.missingMessage();
    }

    /** This sample's jar, if it is where the lab looks. */
    public Optional<Path> jar() {
        return places().stream().filter(Files::isRegularFile).findFirst();
    }

    /** Every place the lab looks for this sample's jar, in order, for a message that says none had it. */
    public List<Path> places() {
        List<Path> candidates = new ArrayList<>();
        String named = System.getProperty(property);
        String fromEnv = System.getenv(env);
        if (named != null && !named.isBlank()) {
            candidates.add(Path.of(named));
            return candidates; // named: nowhere else
        }
        if (fromEnv != null && !fromEnv.isBlank()) {
            candidates.add(Path.of(fromEnv));
            return candidates;
        }
        repository().ifPresent(root -> candidates.add(root.resolve(inRepository)));
        Path here = Path.of("").toAbsolutePath().resolve(inRepository);
        if (!candidates.contains(here)) {
            candidates.add(here);
        }
        return candidates;
    }

    /** {@code no Spring sample jar at A or B: build it ...}. */
    public String missingMessage() {
        return "no Spring sample jar at " + String.join(" or ", places().stream().map(Path::toString).toList())
                + ": " + howToBuild;
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
}
