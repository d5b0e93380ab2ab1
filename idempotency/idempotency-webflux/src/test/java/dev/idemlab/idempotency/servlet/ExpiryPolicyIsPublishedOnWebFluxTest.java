package dev.idemlab.idempotency.servlet;

/** {@link ExpiryPolicyIsPublishedTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class ExpiryPolicyIsPublishedOnWebFluxTest extends ExpiryPolicyIsPublishedTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
