package dev.idemlab.peers.internal;

import dev.idemlab.peers.ChargeReceipt;
import dev.idemlab.peers.ChargeRequest;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.redis.processor.idempotent.SpringRedisIdempotentRepository;
import org.apache.camel.impl.DefaultCamelContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Apache Camel's idempotent consumer: a {@code direct:} route whose charging step sits inside
 * {@code idempotentConsumer(header(key), SpringRedisIdempotentRepository)}, with the consumer's
 * defaults (eager, remove on failure, skip duplicates). The client sends the request through a
 * {@link ProducerTemplate} and gets back the exchange's body.
 *
 * <p>Thread-safe.
 */
public final class CamelPeer implements PeerLibrary {

    static final String KEY_HEADER = "idempotencyKey";
    static final String ENDPOINT = "direct:charge";
    static final String REPOSITORY = "peers:camel:charges";

    private final CamelContext camel;
    private final ProducerTemplate producer;
    private final LettuceConnectionFactory connectionFactory;

    private CamelPeer(CamelContext camel, LettuceConnectionFactory connectionFactory) {
        this.camel = camel;
        this.producer = camel.createProducerTemplate();
        this.connectionFactory = connectionFactory;
    }

    /** Opens the peer: a Camel context with the route, its repository on {@code redisUri}. */
    public static CamelPeer open(FakePaymentProvider provider, String redisUri) {
        RedisAddress address = RedisAddress.parse(redisUri);
        LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(address.host(), address.port()));
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
        CamelContext camel = new DefaultCamelContext();
        try {
            SpringRedisIdempotentRepository repository = SpringRedisIdempotentRepository.redisIdempotentRepository(
                    new StringRedisTemplate(connectionFactory), REPOSITORY);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from(ENDPOINT)
                            .idempotentConsumer(header(KEY_HEADER), repository)
                            .process(exchange -> {
                                ChargeRequest request = exchange.getMessage().getBody(ChargeRequest.class);
                                exchange.getMessage().setBody(ChargeReceipt.of(provider.charge(
                                        request.orderId(), request.amount(), request.idempotencyKey())));
                            })
                            .end();
                }
            });
            camel.start();
            return new CamelPeer(camel, connectionFactory);
        } catch (Exception e) {
            camel.stop();
            connectionFactory.destroy();
            throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException("camel did not start", e);
        }
    }

    @Override
    public String name() {
        return "camel";
    }

    @Override
    public String version() {
        return camel.getVersion();
    }

    @Override
    public String wiring() {
        return "direct: route, idempotentConsumer(header(key), SpringRedisIdempotentRepository), ProducerTemplate.requestBody";
    }

    @Override
    public StoreKind storeKind() {
        return StoreKind.REDIS;
    }

    @Override
    public Object charge(String idempotencyKey, String orderId, long amount) {
        return producer.requestBodyAndHeader(ENDPOINT, new ChargeRequest(idempotencyKey, orderId, amount),
                KEY_HEADER, idempotencyKey);
    }

    @Override
    public void close() {
        try {
            camel.stop();
        } finally {
            connectionFactory.destroy();
        }
    }
}
