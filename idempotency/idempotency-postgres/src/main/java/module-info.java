/** An {@code IdempotencyStore} in one PostgreSQL table, over JDBC on any {@code DataSource}. */
module dev.idemlab.idempotency.postgres {
    requires dev.idemlab.idempotency.core;
    requires java.sql;
    requires org.postgresql.jdbc;
    requires static com.zaxxer.hikari;
    requires io.github.resilience4j.circuitbreaker;
    requires io.github.resilience4j.core;
    requires org.slf4j;

    exports dev.idemlab.idempotency.store.postgres;
    // schema.sql is read as a resource of this module.
    opens dev.idemlab.idempotency.store.postgres;
}
