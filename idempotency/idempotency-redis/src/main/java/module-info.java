/** An {@code IdempotencyStore} on Redis through Lettuce. */
module dev.idemlab.idempotency.redis {
    requires dev.idemlab.idempotency.core;
    requires transitive lettuce.core;   // a store can be given the application's RedisClient
    requires io.github.resilience4j.circuitbreaker;
    requires io.github.resilience4j.core;
    requires org.slf4j;

    exports dev.idemlab.idempotency.store.redis;
    // The Lua scripts are read as resources of this module.
    opens dev.idemlab.idempotency.store.redis;
}
