package dev.idemlab.lab.infra;

import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Starts a private PostgreSQL in a Testcontainers container, when Docker is available.
 *
 * <p>Stateless and thread-safe; each call starts its own container.
 */
final class ContainerPostgres {

    static final String IMAGE = "postgres:16-alpine";

    private ContainerPostgres() { }

    static boolean dockerAvailable() {
        return Docker.available();
    }

    /**
     * @throws ProvisioningException if Docker is missing or the container does not start
     */
    static PostgresServer start() {
        if (!dockerAvailable()) {
            throw new ProvisioningException(Docker.UNAVAILABLE, null);
        }
        PostgreSQLContainer<?> container = new PostgreSQLContainer<>(DockerImageName.parse(IMAGE));
        try {
            container.start();
        } catch (RuntimeException e) {
            container.close();
            throw new ProvisioningException("could not start a " + IMAGE + " container: " + e.getMessage(), e);
        }
        String address = container.getHost() + ":" + container.getFirstMappedPort();
        return new PostgresServer(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                Origin.CONTAINER, address, container::stop);
    }
}
