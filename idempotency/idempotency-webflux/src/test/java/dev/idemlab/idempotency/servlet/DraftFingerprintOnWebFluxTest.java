package dev.idemlab.idempotency.servlet;

/** {@link DraftFingerprintTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class DraftFingerprintOnWebFluxTest extends DraftFingerprintTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
