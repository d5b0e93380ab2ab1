package dev.idemlab.idempotency.servlet;

/** {@link DraftSyntaxTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class DraftSyntaxOnWebFluxTest extends DraftSyntaxTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
