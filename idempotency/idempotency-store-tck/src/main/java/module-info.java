/** The {@code IdempotencyStore} contract as a JUnit 5 test kit. */
module dev.idemlab.idempotency.tck {
    requires transitive dev.idemlab.idempotency.core;
    requires transitive org.junit.jupiter.api;
    requires org.assertj.core;

    exports dev.idemlab.idempotency.tck;
    // JUnit reflects over the kit's test methods.
    opens dev.idemlab.idempotency.tck to org.junit.platform.commons;
}
