package dev.idemlab.lab.nemesis;

/**
 * Which layer the nemesis's calls go through: the one users adopt decides what the run proves. The
 * bare coordinator proves the protocol; the {@code @Idempotent} proxy and the HTTP filter prove the
 * layers on top of it, which map keys, fingerprints, cancels and clients onto the coordinator on their
 * own and can break what it keeps; the sample proves a service built on the starter, run as a team runs it.
 * The two HTTP filters (servlet and WebFlux) are driven by one path, so that each is held to the same checks.
 */
public enum Through {
    /** {@code IdempotencyCoordinator.call} and {@code callAsync}, as the run always sent them. */
    COORDINATOR("coordinator"),
    /** An {@code @Idempotent} interface made by {@code Idempotency.proxy}, a synchronous and an asynchronous method. */
    PROXY("proxy"),
    /** The demo API's servlet filter over real HTTP on 127.0.0.1, several bearer clients sharing keys. */
    HTTP("http"),
    /**
     * The WebFlux filter ({@code IdempotencyWebFilter}) on Reactor Netty over real HTTP on 127.0.0.1, in
     * front of the same charge route, with the same route settings, clients and checks as {@link #HTTP}.
     */
    WEBFLUX("webflux"),
    /**
     * The Spring Boot sample ({@code examples/spring-boot-payments}) in a JVM of its own over real HTTP on
     * 127.0.0.1: its store client reaches the run's store through the nemesis's proxy, and its JVM is the
     * holder the holder faults pause and kill.
     */
    SAMPLE("sample"),
    /**
     * Not a layer of calls: records on a Kafka topic, handled by a consumer group through the Kafka adapter
     * ({@link ConsumerNemesis}), the nemesis on consumers.
     */
    KAFKA("kafka");

    private final String id;

    Through(String id) {
        this.id = id;
    }

    /** The name on the command line: {@code proxy}. */
    public String id() {
        return id;
    }

    /**
     * Whether the calls go to one of the library's HTTP filters in the lab's own JVM (the servlet filter or
     * the WebFlux filter), whose route the run sets up: its clients, and a scoping broken on purpose.
     */
    public boolean filter() {
        return this == HTTP || this == WEBFLUX;
    }
}
