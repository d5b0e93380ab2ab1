package dev.idemlab.idempotency.servlet;

/** {@link DraftSecurityTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class DraftSecurityOnWebFluxTest extends DraftSecurityTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
