package dev.idemlab.provider.http;

import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.PaymentProviderContractTest;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/** The contract over HTTP: a real Jetty on 127.0.0.1 in front of the fake provider. */
class HttpPaymentProviderContractTest extends PaymentProviderContractTest {

    private final List<ProviderService> services = new ArrayList<>();

    @Override
    protected PaymentProvider over(FakePaymentProvider backing) {
        ProviderService service = ProviderService.start(backing);
        services.add(service);
        return HttpPaymentProvider.connect(service.uri());
    }

    @AfterEach
    void stopServices() {
        services.forEach(ProviderService::close);
    }
}
