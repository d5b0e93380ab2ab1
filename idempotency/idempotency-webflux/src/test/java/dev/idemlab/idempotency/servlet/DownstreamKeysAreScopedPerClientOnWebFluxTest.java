package dev.idemlab.idempotency.servlet;

/** {@link DownstreamKeysAreScopedPerClientTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class DownstreamKeysAreScopedPerClientOnWebFluxTest extends DownstreamKeysAreScopedPerClientTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
