package dev.idemlab.lab.probe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.processor.idempotent.MemoryIdempotentRepository;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The probe against an independent implementation: an HTTP route whose idempotency is Apache Camel's
 * idempotent consumer (the pattern's textbook form: the Idempotency-Key header as the message id, an
 * in-memory repository), written as a team would wire it, in front of the counting provider. The probe
 * must name each defect by its row, from the answers and the ledger.
 */
class ProbeAgainstCamelTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final FakePaymentProvider PROVIDER = FakePaymentProvider.builder().latency(Duration.ofMillis(300)).build();
    private static CamelContext camel;
    private static Server server;
    private static URI uri;
    private static Map<String, ProbeRow> rows;

    @BeforeAll
    static void probeIt() throws Exception {
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:charge")
                        .idempotentConsumer(header("key"), MemoryIdempotentRepository.memoryIdempotentRepository(10_000))
                        .process(exchange -> {
                            long amount = exchange.getMessage().getBody(Long.class);
                            Charge charge = PROVIDER.charge("o-1", amount, exchange.getMessage().getHeader("key", String.class));
                            exchange.getMessage().setHeader("status", 201);
                            exchange.getMessage().setBody("{\"id\":\"" + charge.id() + "\"}");
                        })
                        .end();
            }
        });
        camel.start();
        ProducerTemplate producer = camel.createProducerTemplate();
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
                long amount = JSON.readTree(request.getInputStream()).path("amount").asLong();
                Exchange done = producer.request("direct:charge", exchange -> {
                    exchange.getMessage().setHeader("key", request.getHeader("Idempotency-Key"));
                    exchange.getMessage().setBody(amount);
                });
                if (done.getException() != null) {
                    response.setStatus(500);
                    return;
                }
                Integer status = done.getMessage().getHeader("status", Integer.class);
                response.setStatus(status == null ? 200 : status);
                response.setContentType("application/json");
                response.getOutputStream().write(done.getMessage().getBody(String.class).getBytes(StandardCharsets.UTF_8));
            }

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                ArrayNode ledger = JSON.createArrayNode();
                PROVIDER.ledger().forEach(charge -> ledger.addObject().put("id", charge.id())
                        .put("idempotency_key", charge.idempotencyKey()));
                response.setContentType("application/json");
                response.getOutputStream().write(JSON.writeValueAsBytes(ledger));
            }
        }), "/*");
        server.setHandler(context);
        server.start();
        uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/orders/o-1/charge");
        rows = new Probe(new ProbeSettings(uri, "POST", ProbeSettings.DEFAULT_BODY, "client-a", 8, "client-b")).run()
                .stream().collect(Collectors.toMap(ProbeRow::check, Function.identity()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (camel != null) {
            camel.stop();
        }
    }

    private static ProbeRow row(String check) {
        assertThat(rows).as("the probe's rows").containsKey(check);
        return rows.get(check);
    }

    @Test
    void concurrentDuplicatesGetAnotherAnswerThanTheFirst() {
        assertThat(row("concurrent identical x8").verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
        assertThat(row("concurrent identical x8").rule()).contains("one answer and one resource");
    }

    @Test
    void aKeyReusedWithAnotherBodyIsAnsweredAsADuplicate() {
        assertThat(row("same key, another body").verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
    }

    @Test
    void anySyntaxIsTakenAsAKeyAndTheEmptyKeyIsOneSharedRecord() {
        assertThat(row("key as List").verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
        assertThat(row("key as List").got()).contains("taken as a key");
        assertThat(row("key as two field lines").verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
        assertThat(row("key as empty String").rule()).contains("every client that sends it shares one record");
        assertThat(row("key as bare token").verdict()).isEqualTo(ProbeRow.Verdict.NOTE);
    }

    @Test
    void theQuotedFieldIsTakenAsTheKey() {
        assertThat(row("key read as the String's value").verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
        assertThat(row("key read as the String's value").got()).contains("under the key in quotes");
    }

    @Test
    void oneClientsKeySwallowsAnotherClientsCharge() {
        ProbeRow scoping = row("one key, two clients");
        assertThat(scoping.verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
        assertThat(scoping.got()).contains("answered 2xx, and nothing was charged");
    }

    @Test
    void aMissingKeyAndARetryAfterSuccessFailToo() {
        // A missing key cannot be a message id: Camel fails the exchange, and the route answers 500.
        assertThat(row("no key").verdict()).isEqualTo(ProbeRow.Verdict.FAIL);
        assertThat(List.of(row("retry after success").verdict())).containsExactly(ProbeRow.Verdict.FAIL);
    }
}
