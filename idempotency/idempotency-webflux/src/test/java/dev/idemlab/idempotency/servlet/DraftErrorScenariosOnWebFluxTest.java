package dev.idemlab.idempotency.servlet;

/** {@link DraftErrorScenariosTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class DraftErrorScenariosOnWebFluxTest extends DraftErrorScenariosTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
