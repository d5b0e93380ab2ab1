package dev.idemlab.provider;

/** The contract, in process: the fake provider is its own ground truth. */
class InProcessPaymentProviderTest extends PaymentProviderContractTest {

    @Override
    protected PaymentProvider over(FakePaymentProvider backing) {
        return backing;
    }
}
