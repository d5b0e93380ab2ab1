package dev.idemlab.lab.http;

import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.http.HttpPaymentProvider;

import java.net.URI;
import java.time.Duration;
import java.util.function.IntConsumer;

/**
 * The provider the demo charges, with its fault hook and a line for people.
 *
 * @param provider the provider
 * @param failNext plans its next n charges to time out before charging
 * @param description {@code in-process fake provider, 300 ms per charge} or {@code provider service at URL}
 */
public record DemoProvider(PaymentProvider provider, IntConsumer failNext, String description) {

    /** A fresh in-process fake provider. */
    public static DemoProvider inProcess(Duration latency) {
        FakePaymentProvider fake = FakePaymentProvider.builder().latency(latency).build();
        return new DemoProvider(fake, fake::failNextCalls,
                "in-process fake provider, " + latency.toMillis() + " ms per charge");
    }

    /** The provider service at {@code uri}. */
    public static DemoProvider remote(URI uri) {
        HttpPaymentProvider http = HttpPaymentProvider.connect(uri);
        return new DemoProvider(http, http::failNextCalls, "provider service at " + http.uri());
    }
}
