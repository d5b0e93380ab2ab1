package dev.idemlab.lab.infra;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A private Redis in a {@code redis:7} container, without persistence. Testcontainers removes it
 * when the JVM exits, even if it was never closed.
 *
 * <p>Thread-safe.
 */
final class RedisContainer implements PrivateRedisServer {

    static final String IMAGE = "redis:7";
    private static final int REDIS_PORT = 6379;

    private final GenericContainer<?> container;
    private final String address;

    private RedisContainer(GenericContainer<?> container) {
        this.container = container;
        // Read while running: a stopped container no longer has a mapped port to ask about.
        this.address = container.getHost() + ":" + container.getMappedPort(REDIS_PORT);
    }

    /**
     * Starts a container and waits until its port is open.
     *
     * @throws ProvisioningException if it cannot be started
     */
    static RedisContainer start() {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withExposedPorts(REDIS_PORT)
                .withCommand("redis-server", "--save", "", "--appendonly", "no");
        try {
            container.start();
        } catch (RuntimeException e) {
            container.close();
            throw new ProvisioningException("cannot start a " + IMAGE + " container: " + e.getMessage(), e);
        }
        return new RedisContainer(container);
    }

    @Override
    public String uri() {
        return "redis://" + address();
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public Origin origin() {
        return Origin.CONTAINER;
    }

    @Override
    public synchronized void close() {
        container.close();
    }
}
