package dev.idemlab.idempotency.servlet;

/** {@link RetryAfterCountsDownTheExpectedDurationTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class RetryAfterCountsDownTheExpectedDurationOnWebFluxTest extends RetryAfterCountsDownTheExpectedDurationTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
