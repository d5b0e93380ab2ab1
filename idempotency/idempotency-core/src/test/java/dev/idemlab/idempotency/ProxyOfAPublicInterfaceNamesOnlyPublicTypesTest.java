package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A public interface whose methods return or throw a package-private type (the guide's {@code Charge}
 * copied without {@code public}) used to get a proxy whose first call failed with
 * {@code IllegalAccessError}: the JDK puts that proxy in a module of its own, which cannot name the
 * type. It is refused when the proxy is created, naming the method, the type and the rule; the same
 * types behind a package-private interface, whose proxy lives in the interface's package, work.
 */
class ProxyOfAPublicInterfaceNamesOnlyPublicTypesTest {

    record HiddenCharge(String id, long amount) { }

    static final class HiddenFailure extends Exception {
        HiddenFailure(String message) {
            super(message);
        }
    }

    public interface PublicPayments {
        @Idempotent(operation = "payment.charge")
        HiddenCharge charge(@IdempotencyKey String key, long amount);
    }

    public interface PublicPaymentsThrowing {
        @Idempotent(operation = "payment.charge")
        String charge(@IdempotencyKey String key, long amount) throws HiddenFailure;
    }

    public interface PublicPaymentsWithAHiddenPassThrough {
        @Idempotent(operation = "payment.charge")
        String charge(@IdempotencyKey String key, long amount);

        HiddenCharge[] history();
    }

    /** A hidden type taken as a parameter only is passed along, never named by the proxy: allowed. */
    public interface PublicPaymentsTakingAHiddenRequest {
        @Idempotent(operation = "payment.charge", fingerprint = "request.amount")
        String charge(@IdempotencyKey String key, HiddenCharge request);
    }

    interface PackagePrivatePayments {
        @Idempotent(operation = "payment.charge")
        HiddenCharge charge(@IdempotencyKey String key, long amount);
    }

    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
            .build();
    private final AtomicInteger charges = new AtomicInteger();

    @Test
    void aHiddenResultTypeIsRefusedWhenTheProxyIsCreatedNamingMethodTypeAndRule() {
        PublicPayments direct = (key, amount) -> new HiddenCharge("ch_" + charges.incrementAndGet(), amount);
        assertThatThrownBy(() -> Idempotency.proxy(PublicPayments.class, direct, coordinator))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@Idempotent PublicPayments.charge returns " + HiddenCharge.class.getName()
                        + ", which is not public")
                .hasMessageContaining("cannot name a type that is not public in a method's result or throws clause")
                .hasMessageContaining("make HiddenCharge public, or PublicPayments package-private");
        assertThat(charges).as("nothing was charged").hasValue(0);
    }

    @Test
    void aHiddenExceptionOrAHiddenArrayOnAPassThroughMethodIsRefusedToo() {
        PublicPaymentsThrowing throwing = (key, amount) -> "ch_1";
        assertThatThrownBy(() -> Idempotency.proxy(PublicPaymentsThrowing.class, throwing, coordinator))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@Idempotent PublicPaymentsThrowing.charge throws " + HiddenFailure.class.getName());
        PublicPaymentsWithAHiddenPassThrough passThrough = new PublicPaymentsWithAHiddenPassThrough() {
            @Override
            public String charge(String key, long amount) {
                return "ch_1";
            }

            @Override
            public HiddenCharge[] history() {
                return new HiddenCharge[0];
            }
        };
        assertThatThrownBy(() -> Idempotency.proxy(PublicPaymentsWithAHiddenPassThrough.class, passThrough, coordinator))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PublicPaymentsWithAHiddenPassThrough.history returns " + HiddenCharge.class.getName());
    }

    @Test
    void aHiddenParameterTypeIsAllowedAndTheCallChargesOnce() {
        PublicPaymentsTakingAHiddenRequest direct = (key, request) -> "ch_" + charges.incrementAndGet();
        PublicPaymentsTakingAHiddenRequest payments =
                Idempotency.proxy(PublicPaymentsTakingAHiddenRequest.class, direct, coordinator);

        assertThat(payments.charge("k-1", new HiddenCharge("order-42", 10))).isEqualTo("ch_1");
        assertThat(payments.charge("k-1", new HiddenCharge("order-42", 10))).as("replayed").isEqualTo("ch_1");
        assertThat(charges).hasValue(1);
    }

    @Test
    void theSameTypesBehindAPackagePrivateInterfaceWorkAndReplay() {
        PackagePrivatePayments direct = (key, amount) -> new HiddenCharge("ch_" + charges.incrementAndGet(), amount);
        PackagePrivatePayments payments = Idempotency.proxy(PackagePrivatePayments.class, direct, coordinator);

        HiddenCharge first = payments.charge("k-1", 10);
        HiddenCharge retry = payments.charge("k-1", 10);

        assertThat(retry).isEqualTo(first).isEqualTo(new HiddenCharge("ch_1", 10));
        assertThat(charges).as("charged once").hasValue(1);
    }
}
