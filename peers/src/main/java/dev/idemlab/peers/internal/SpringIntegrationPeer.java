package dev.idemlab.peers.internal;

import dev.idemlab.peers.ChargeReceipt;
import dev.idemlab.peers.ChargeRequest;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.integration.handler.advice.IdempotentReceiverInterceptor;
import org.springframework.integration.redis.metadata.RedisMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Spring Integration's idempotent receiver: a gateway into a flow whose charging handler carries an
 * {@link IdempotentReceiverInterceptor} over a {@link MetadataStoreSelector} on a
 * {@link RedisMetadataStore}, keyed by the {@value #KEY_HEADER} header.
 *
 * <p>The interceptor is set to throw on a duplicate. Left at its default it would hand the duplicate
 * to the handler anyway, marked with a {@code duplicateMessage} header, and a handler that does not
 * read that header charges again.
 *
 * <p>Thread-safe.
 */
public final class SpringIntegrationPeer implements PeerLibrary {

    static final String KEY_HEADER = "idempotencyKey";
    static final String METADATA_KEY = "peers:si:metadata";

    private final AnnotationConfigApplicationContext context;
    private final ChargeGateway gateway;

    private SpringIntegrationPeer(AnnotationConfigApplicationContext context) {
        this.context = context;
        this.gateway = context.getBean(ChargeGateway.class);
    }

    /** The client's entry into the flow. Public so that Spring can proxy it. */
    public interface ChargeGateway {
        ChargeReceipt charge(ChargeRequest request, @Header(KEY_HEADER) String idempotencyKey);
    }

    /** The flow, as the reference documentation's Java DSL example wires an idempotent receiver. */
    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    public static class Wiring {

        @Bean
        public RedisMetadataStore metadataStore(RedisConnectionFactory connectionFactory) {
            return new RedisMetadataStore(connectionFactory, METADATA_KEY);
        }

        @Bean
        public IdempotentReceiverInterceptor idempotentReceiverInterceptor(RedisMetadataStore metadataStore) {
            IdempotentReceiverInterceptor interceptor = new IdempotentReceiverInterceptor(
                    new MetadataStoreSelector(message -> (String) message.getHeaders().get(KEY_HEADER), metadataStore));
            interceptor.setThrowExceptionOnRejection(true);
            return interceptor;
        }

        @Bean
        public IntegrationFlow chargeFlow(FakePaymentProvider provider, IdempotentReceiverInterceptor interceptor) {
            return IntegrationFlow.from(ChargeGateway.class)
                    .handle(ChargeRequest.class, (request, headers) -> ChargeReceipt.of(
                            provider.charge(request.orderId(), request.amount(), request.idempotencyKey())),
                            endpoint -> endpoint.advice(interceptor))
                    .get();
        }
    }

    /** Opens the peer: an integration context over a Lettuce connection to {@code redisUri}. */
    public static SpringIntegrationPeer open(FakePaymentProvider provider, String redisUri) {
        RedisAddress address = RedisAddress.parse(redisUri);
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        try {
            context.registerBean(FakePaymentProvider.class, () -> provider);
            context.registerBean(RedisConnectionFactory.class, () -> new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(address.host(), address.port())));
            context.register(Wiring.class);
            context.refresh();
            return new SpringIntegrationPeer(context);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "spring-integration";
    }

    @Override
    public String version() {
        return LibraryVersion.of("org.springframework.integration", "spring-integration-core",
                IdempotentReceiverInterceptor.class);
    }

    @Override
    public String wiring() {
        return "gateway -> handler advised by IdempotentReceiverInterceptor(MetadataStoreSelector on the key header, "
                + "RedisMetadataStore), throwExceptionOnRejection";
    }

    @Override
    public StoreKind storeKind() {
        return StoreKind.REDIS;
    }

    @Override
    public Object charge(String idempotencyKey, String orderId, long amount) {
        return gateway.charge(new ChargeRequest(idempotencyKey, orderId, amount), idempotencyKey);
    }

    @Override
    public void close() {
        context.close();
    }
}
