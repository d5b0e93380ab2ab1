package dev.idemlab.lab.infra;

import org.testcontainers.DockerClientFactory;

/**
 * Whether Testcontainers can reach a Docker daemon. Testcontainers' own search logs every strategy it
 * tried, with their exceptions; the lab's logging configuration mutes that, and the lab says it in one
 * line instead: {@link #UNAVAILABLE}.
 */
final class Docker {

    /** The line a user reads when the container origin cannot be used. */
    static final String UNAVAILABLE = "no Docker: the container origin is not available";

    private Docker() { }

    static boolean available() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
