package dev.idemlab.lab.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lab's console logging, as lab.jar ships it (simplelogger.properties): a user reads the lab's own
 * lines on standard error, never the libraries' INFO, nor the warnings the lab provokes on purpose and
 * reports in its rows (issue 29: {@code scenario all} printed two {@code [WARN] OwnerAttempt} lines).
 */
class ConsoleLoggingTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "org.eclipse.jetty.server.Server",
            "io.lettuce.core.RedisClient",
            "io.netty.util.internal.PlatformDependent",
            "org.testcontainers.DockerClientFactory",
            "com.zaxxer.hikari.HikariDataSource",
            "io.zonky.test.db.postgres.embedded.EmbeddedPostgres",
            "org.apache.camel.impl.engine.AbstractCamelContext",
            "org.springframework.context.support.GenericApplicationContext",
            "org.redisson.Redisson",
            "org.netcrusher.tcp.TcpCrusher",
            "kafka.server.KafkaRaftServer",
            "org.apache.kafka.controller.QuorumController",
            "dev.idemlab.lab.cli.ScenarioRunner"})
    void infoIsOff(String name) {
        Logger logger = LoggerFactory.getLogger(name);
        assertThat(logger.isInfoEnabled()).as("INFO of %s", name).isFalse();
    }

    /** What the failure lab and store-down provoke on purpose, counted in their rows instead. */
    @ParameterizedTest
    @ValueSource(strings = {
            "dev.idemlab.idempotency.internal.OwnerAttempt",
            "dev.idemlab.idempotency.internal.Heartbeat",
            "dev.idemlab.idempotency.internal.StoreCalls",
            "dev.idemlab.idempotency.internal.DefaultIdempotencyCoordinator",
            "dev.idemlab.lab.policy.ResultCacheCoordinator",
            "dev.idemlab.idempotency.store.redis.RedisIdempotencyStore",
            "dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore",
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"})
    void warningsTheRowsReportAreOffButErrorsShow(String name) {
        Logger logger = LoggerFactory.getLogger(name);
        assertThat(logger.isWarnEnabled()).as("WARN of %s", name).isFalse();
        assertThat(logger.isErrorEnabled()).as("ERROR of %s", name).isTrue();
    }
}
