package dev.idemlab.idempotency.servlet;

/** {@link DraftResponsibilitiesTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class DraftResponsibilitiesOnWebFluxTest extends DraftResponsibilitiesTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
