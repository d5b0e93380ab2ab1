package dev.idemlab.lab.scenario;

import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.http.HttpPaymentProvider;
import dev.idemlab.provider.http.ProviderService;

import java.util.List;

/**
 * The counting provider a scenario charges: the fake itself, or the fake behind its HTTP service
 * with callers using the HTTP client. Either way the ledger is read back through the callers' own
 * provider (over HTTP: {@code GET /ledger}), never from what the scenario expected. Closing it stops
 * the service. Thread-safe.
 */
final class ScenarioProvider implements AutoCloseable {

    private final FakePaymentProvider fake;
    private final ProviderService service;
    private final PaymentProvider client;

    private ScenarioProvider(FakePaymentProvider fake, ProviderService service, PaymentProvider client) {
        this.fake = fake;
        this.service = service;
        this.client = client;
    }

    /** {@code fake} reached as {@code choice} says; over HTTP the service runs until {@link #close()}. */
    static ScenarioProvider of(FakePaymentProvider fake, ProviderChoice choice) {
        if (choice == ProviderChoice.IN_PROCESS) {
            return new ScenarioProvider(fake, null, fake);
        }
        ProviderService service = ProviderService.start(fake);
        return new ScenarioProvider(fake, service, HttpPaymentProvider.connect(service.uri()));
    }

    /** What callers charge. */
    PaymentProvider client() {
        return client;
    }

    /** The provider object behind it, for planning faults. */
    FakePaymentProvider fake() {
        return fake;
    }

    /** The ledger's charge ids, read the way callers reach the provider. */
    List<String> chargeIds() {
        return client.chargeIds();
    }

    /** For reports: {@code in-process} or {@code http://127.0.0.1:PORT}. */
    String where() {
        return service == null ? "in-process" : service.uri().toString();
    }

    @Override
    public void close() {
        if (service != null) {
            service.close();
        }
    }
}
