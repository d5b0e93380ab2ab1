package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The server and settings the store reads off a {@code LettuceConnectionFactory}; no server needed. */
class ConnectionFactoryClientTest {

    @Test
    void theUriCarriesTheFactorysServerCredentialsTlsAndClientNameAsLettuceReadsThem() {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("redis.internal", 6380);
        server.setDatabase(3);
        server.setUsername("payments");
        server.setPassword("p@ss:w/rd%?#");
        LettuceConnectionFactory factory = new LettuceConnectionFactory(server, LettuceClientConfiguration.builder()
                .useSsl().verifyPeer(SslVerifyMode.CA).and().clientName("orders-api").build());

        String uri = ConnectionFactoryClient.uri(factory);

        assertThat(ConnectionFactoryClient.unusableBecause(factory)).contains("not started");
        RedisStoreConfig config = RedisStoreConfig.of(uri);
        assertThat(config.address()).isEqualTo("redis.internal:6380");
        assertThat(config.toString()).doesNotContain("p@ss");
        RedisURI read = RedisURI.create(config.uri());
        assertThat(read.getHost()).isEqualTo("redis.internal");
        assertThat(read.getPort()).isEqualTo(6380);
        assertThat(read.getDatabase()).isEqualTo(3);
        assertThat(read.isSsl()).isTrue();
        assertThat(read.isStartTls()).isFalse();
        assertThat(read.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
        assertThat(read.getClientName()).isEqualTo("orders-api");
        RedisCredentials credentials = read.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
        assertThat(credentials.getUsername()).isEqualTo("payments");
        assertThat(new String(credentials.getPassword())).isEqualTo("p@ss:w/rd%?#");
    }

    @Test
    void aPasswordWithoutAUsernameIsTheDefaultUsersAndNoPasswordNoneAtAll() {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("127.0.0.1", 6379);
        assertThat(ConnectionFactoryClient.uri(new LettuceConnectionFactory(server))).isEqualTo("redis://127.0.0.1:6379/0");

        server.setPassword("secret");
        RedisURI read = RedisURI.create(ConnectionFactoryClient.uri(new LettuceConnectionFactory(server)));
        RedisCredentials credentials = read.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
        assertThat(credentials.hasUsername()).isFalse();
        assertThat(new String(credentials.getPassword())).isEqualTo("secret");
    }

    @Test
    void startTlsAndACredentialsProviderCannotBeWrittenInTheUri() {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("127.0.0.1", 6379);
        LettuceConnectionFactory startTls = new LettuceConnectionFactory(server,
                LettuceClientConfiguration.builder().useSsl().startTls().build());
        assertThat(ConnectionFactoryClient.unusableBecause(startTls)).contains("StartTLS");

        LettuceConnectionFactory rotating = new LettuceConnectionFactory(server, LettuceClientConfiguration.builder()
                .redisCredentialsProviderFactory(new RedisCredentialsProviderFactory() { })
                .build());
        assertThat(ConnectionFactoryClient.unusableBecause(rotating)).contains("RedisCredentialsProviderFactory");
    }
}
