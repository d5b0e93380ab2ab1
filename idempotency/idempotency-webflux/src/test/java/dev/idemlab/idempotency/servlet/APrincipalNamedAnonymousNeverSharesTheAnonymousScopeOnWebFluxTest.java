package dev.idemlab.idempotency.servlet;

/** {@link APrincipalNamedAnonymousNeverSharesTheAnonymousScopeTest}, the servlet filter's rule, run against the WebFlux filter on Reactor Netty. */
class APrincipalNamedAnonymousNeverSharesTheAnonymousScopeOnWebFluxTest extends APrincipalNamedAnonymousNeverSharesTheAnonymousScopeTest {

    @Override
    ServerUnderTest.Servers servers() {
        return WebFluxServer.WEBFLUX;
    }
}
